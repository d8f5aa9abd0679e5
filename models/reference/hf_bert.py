"""Hugging Face's BERT, re-read from its source for the goldens of tests/golden/hf/: the tokenizer
(BertTokenizer = BasicTokenizer + WordpieceTokenizer) and BertForMaskedLM's forward pass over a
state dict in Hugging Face's own tensor names. Run with /usr/bin/python3 (torch); `transformers` is
not needed. Independent of models/reference/attnscope_ref/ and of the converter: it reads the
checkpoint's names, never attnscope's.

What each part mirrors (transformers, src/transformers/):

    tokenization_utils.py        _is_whitespace, _is_control, _is_punctuation; the split on added
                                 (special) tokens that PreTrainedTokenizer.tokenize does first
                                 (Trie.split: leftmost match, the longest one there)
    models/bert/tokenization_bert.py
                                 load_vocab, whitespace_tokenize, BasicTokenizer (tokenize,
                                 _run_strip_accents, _run_split_on_punc, _tokenize_chinese_chars,
                                 _is_chinese_char, _clean_text), WordpieceTokenizer.tokenize,
                                 BertTokenizer._tokenize, build_inputs_with_special_tokens,
                                 create_token_type_ids_from_sequences
    modeling_utils.py            the key fix on load of old checkpoints: LayerNorm gamma -> weight,
                                 beta -> bias
    models/bert/modeling_bert.py BertEmbeddings, BertSelfAttention (absolute positions, no mask,
                                 eval: no dropout), BertSelfOutput, BertIntermediate, BertOutput,
                                 BertLayer, BertEncoder, BertPredictionHeadTransform,
                                 BertLMPredictionHead (decoder tied to the word embeddings, its bias
                                 the separate `bias` parameter), BertForMaskedLM
    activations.py               ACT2FN["gelu"] = GELUActivation = torch.nn.functional.gelu (erf)

Recent transformers versions also NFC-normalise the text in BasicTokenizer.tokenize; the goldens
use precomposed text, on which that is the identity.
"""

import collections
import math
import unicodedata

import torch


# ---- tokenization_utils.py ----

def _is_whitespace(char):
    if char == " " or char == "\t" or char == "\n" or char == "\r":
        return True
    return unicodedata.category(char) == "Zs"


def _is_control(char):
    if char == "\t" or char == "\n" or char == "\r":
        return False
    return unicodedata.category(char).startswith("C")


def _is_punctuation(char):
    cp = ord(char)
    if (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126):
        return True
    return unicodedata.category(char).startswith("P")


def split_on_added_tokens(text, added_tokens):
    """PreTrainedTokenizer.tokenize's first step: cut the added tokens (here the special tokens,
    lstrip/rstrip False as BERT's are) out of the text, leftmost first, the longest at one place."""
    out, start, i = [], 0, 0
    ordered = sorted(added_tokens, key=len, reverse=True)
    while i < len(text):
        hit = next((t for t in ordered if text.startswith(t, i)), None)
        if hit is None:
            i += 1
            continue
        if start < i:
            out.append(text[start:i])
        out.append(hit)
        i += len(hit)
        start = i
    if start < len(text):
        out.append(text[start:])
    return out


# ---- models/bert/tokenization_bert.py ----

def load_vocab(vocab_file):
    vocab = collections.OrderedDict()
    with open(vocab_file, "r", encoding="utf-8") as reader:
        tokens = reader.readlines()
    for index, token in enumerate(tokens):
        vocab[token.rstrip("\n")] = index
    return vocab


def whitespace_tokenize(text):
    text = text.strip()
    if not text:
        return []
    return text.split()


class BasicTokenizer:
    def __init__(self, do_lower_case=True, never_split=None, tokenize_chinese_chars=True, strip_accents=None):
        self.do_lower_case = do_lower_case
        self.never_split = set(never_split or [])
        self.tokenize_chinese_chars = tokenize_chinese_chars
        self.strip_accents = strip_accents

    def tokenize(self, text, never_split=None):
        never_split = self.never_split.union(set(never_split)) if never_split else self.never_split
        text = self._clean_text(text)
        if self.tokenize_chinese_chars:
            text = self._tokenize_chinese_chars(text)
        orig_tokens = whitespace_tokenize(text)
        split_tokens = []
        for token in orig_tokens:
            if token not in never_split:
                if self.do_lower_case:
                    token = token.lower()
                    if self.strip_accents is not False:
                        token = self._run_strip_accents(token)
                elif self.strip_accents:
                    token = self._run_strip_accents(token)
            split_tokens.extend(self._run_split_on_punc(token, never_split))
        return whitespace_tokenize(" ".join(split_tokens))

    @staticmethod
    def _run_strip_accents(text):
        text = unicodedata.normalize("NFD", text)
        return "".join(char for char in text if unicodedata.category(char) != "Mn")

    @staticmethod
    def _run_split_on_punc(text, never_split=None):
        if never_split is not None and text in never_split:
            return [text]
        output, start_new_word = [], True
        for char in text:
            if _is_punctuation(char):
                output.append([char])
                start_new_word = True
            else:
                if start_new_word:
                    output.append([])
                start_new_word = False
                output[-1].append(char)
        return ["".join(x) for x in output]

    def _tokenize_chinese_chars(self, text):
        output = []
        for char in text:
            if self._is_chinese_char(ord(char)):
                output += [" ", char, " "]
            else:
                output.append(char)
        return "".join(output)

    @staticmethod
    def _is_chinese_char(cp):
        return ((0x4E00 <= cp <= 0x9FFF) or (0x3400 <= cp <= 0x4DBF) or (0x20000 <= cp <= 0x2A6DF)
                or (0x2A700 <= cp <= 0x2B73F) or (0x2B740 <= cp <= 0x2B81F) or (0x2B820 <= cp <= 0x2CEAF)
                or (0xF900 <= cp <= 0xFAFF) or (0x2F800 <= cp <= 0x2FA1F))

    @staticmethod
    def _clean_text(text):
        output = []
        for char in text:
            cp = ord(char)
            if cp == 0 or cp == 0xFFFD or _is_control(char):
                continue
            output.append(" " if _is_whitespace(char) else char)
        return "".join(output)


class WordpieceTokenizer:
    def __init__(self, vocab, unk_token, max_input_chars_per_word=100):
        self.vocab = vocab
        self.unk_token = unk_token
        self.max_input_chars_per_word = max_input_chars_per_word

    def tokenize(self, text):
        output_tokens = []
        for token in whitespace_tokenize(text):
            chars = list(token)
            if len(chars) > self.max_input_chars_per_word:
                output_tokens.append(self.unk_token)
                continue
            is_bad, start, sub_tokens = False, 0, []
            while start < len(chars):
                end, cur_substr = len(chars), None
                while start < end:
                    substr = "".join(chars[start:end])
                    if start > 0:
                        substr = "##" + substr
                    if substr in self.vocab:
                        cur_substr = substr
                        break
                    end -= 1
                if cur_substr is None:
                    is_bad = True
                    break
                sub_tokens.append(cur_substr)
                start = end
            if is_bad:
                output_tokens.append(self.unk_token)
            else:
                output_tokens.extend(sub_tokens)
        return output_tokens


class BertTokenizer:
    SPECIAL_TOKENS = ("[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]")  # unk, sep, pad, cls, mask

    def __init__(self, vocab, do_lower_case=True, never_split=None, tokenize_chinese_chars=True,
                 strip_accents=None, unk_token="[UNK]", max_input_chars_per_word=100):
        self.vocab = vocab  # OrderedDict piece -> id, as load_vocab returns it
        self.unk_token = unk_token
        self.basic_tokenizer = BasicTokenizer(do_lower_case=do_lower_case, never_split=never_split,
                                              tokenize_chinese_chars=tokenize_chinese_chars,
                                              strip_accents=strip_accents)
        self.wordpiece_tokenizer = WordpieceTokenizer(self.vocab, unk_token, max_input_chars_per_word)

    def _tokenize(self, text):
        split_tokens = []
        for token in self.basic_tokenizer.tokenize(text, never_split=list(self.SPECIAL_TOKENS)):
            if token in self.basic_tokenizer.never_split:
                split_tokens.append(token)
            else:
                split_tokens += self.wordpiece_tokenizer.tokenize(token)
        return split_tokens

    def tokenize(self, text):
        tokens = []
        for chunk in split_on_added_tokens(text, self.SPECIAL_TOKENS):
            tokens += [chunk] if chunk in self.SPECIAL_TOKENS else self._tokenize(chunk)
        return tokens

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab.get(t, self.vocab.get(self.unk_token)) for t in tokens]

    def __call__(self, text):
        """-> (pieces with [CLS] and [SEP], input_ids, token_type_ids) of one sequence."""
        pieces = ["[CLS]"] + self.tokenize(text) + ["[SEP]"]  # build_inputs_with_special_tokens
        return pieces, self.convert_tokens_to_ids(pieces), [0] * len(pieces)  # create_token_type_ids_...


# ---- modeling_utils.py: old TensorFlow-converted names ----

def fix_state_dict_keys(state_dict):
    out = {}
    for key, value in state_dict.items():
        if "LayerNorm" in key:
            key = key.replace("gamma", "weight").replace("beta", "bias")
        out[key] = value
    return out


# ---- models/bert/modeling_bert.py: BertForMaskedLM, eval mode ----

class BertForMaskedLM:
    """`state` in Hugging Face names (after fix_state_dict_keys), with or without the "bert."
    prefix of the encoder; `config` is config.json's dict."""

    def __init__(self, state, config):
        self.s = {k[len("bert."):] if k.startswith("bert.") else k: v.to(torch.float32) for k, v in state.items()}
        self.c = config
        if config.get("hidden_act", "gelu") != "gelu":
            raise ValueError("this reference implements ACT2FN['gelu'] only")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("this reference implements absolute positions only")

    def _linear(self, x, prefix):
        return x @ self.s[prefix + ".weight"].T + self.s[prefix + ".bias"]

    def _layer_norm(self, x, prefix):
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), self.s[prefix + ".weight"], self.s[prefix + ".bias"],
                                              self.c.get("layer_norm_eps", 1e-12))

    @staticmethod
    def _act(x):
        return torch.nn.functional.gelu(x)

    def embeddings(self, input_ids, token_type_ids):  # BertEmbeddings.forward
        ids = torch.tensor(input_ids)
        position_ids = torch.arange(len(input_ids))
        embeddings = self.s["embeddings.word_embeddings.weight"][ids] + \
            self.s["embeddings.token_type_embeddings.weight"][torch.tensor(token_type_ids)]
        embeddings = embeddings + self.s["embeddings.position_embeddings.weight"][position_ids]
        return self._layer_norm(embeddings, "embeddings.LayerNorm")

    def self_attention(self, hidden_states, prefix):  # BertSelfAttention.forward
        heads = self.c["num_attention_heads"]
        head_size = self.c["hidden_size"] // heads

        def transpose_for_scores(x):
            return x.view(x.shape[0], heads, head_size).permute(1, 0, 2)

        query_layer = transpose_for_scores(self._linear(hidden_states, prefix + ".query"))
        key_layer = transpose_for_scores(self._linear(hidden_states, prefix + ".key"))
        value_layer = transpose_for_scores(self._linear(hidden_states, prefix + ".value"))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2)) / math.sqrt(head_size)
        attention_probs = torch.nn.functional.softmax(attention_scores, dim=-1)
        context_layer = torch.matmul(attention_probs, value_layer).permute(1, 0, 2).reshape(hidden_states.shape[0], -1)
        return context_layer, attention_probs

    def layer(self, hidden_states, n):  # BertLayer: BertAttention (+ BertSelfOutput), BertIntermediate, BertOutput
        p = f"encoder.layer.{n}."
        self_outputs, probs = self.self_attention(hidden_states, p + "attention.self")
        attention_output = self._layer_norm(self._linear(self_outputs, p + "attention.output.dense") + hidden_states,
                                            p + "attention.output.LayerNorm")
        intermediate_output = self._act(self._linear(attention_output, p + "intermediate.dense"))
        layer_output = self._layer_norm(self._linear(intermediate_output, p + "output.dense") + attention_output,
                                        p + "output.LayerNorm")
        return layer_output, probs

    def __call__(self, input_ids, token_type_ids):
        """-> (prediction_scores [T, V], attentions [layers][heads, T, T])."""
        with torch.no_grad():
            hidden_states = self.embeddings(input_ids, token_type_ids)
            attentions = []
            for n in range(self.c["num_hidden_layers"]):
                hidden_states, probs = self.layer(hidden_states, n)
                attentions.append(probs)
            # BertLMPredictionHead: transform (dense, ACT2FN[hidden_act], LayerNorm), then the decoder
            h = self._layer_norm(self._act(self._linear(hidden_states, "cls.predictions.transform.dense")),
                                 "cls.predictions.transform.LayerNorm")
            decoder_weight = self.s.get("cls.predictions.decoder.weight", self.s["embeddings.word_embeddings.weight"])
            # decoder.bias is the same Parameter as `bias`: a file may hold either name
            bias = self.s.get("cls.predictions.bias", self.s.get("cls.predictions.decoder.bias"))
            prediction_scores = h @ decoder_weight.T + bias
        return prediction_scores, attentions
