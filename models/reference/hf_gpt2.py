"""A reading of Hugging Face's GPT-2 code: the byte-level BPE tokenizer, the forward pass of
GPT2LMHeadModel over the snapshot's own state dict (Conv1D weights, packed c_attn, tied lm_head),
and greedy / beam generation as generate() runs them for a decoder-only model. Written from
transformers' sources, independently of attnscope's reference (attnscope_ref/gpt.py) and of the
converter (models/convert/hf_gpt2.py).

Where each part comes from (transformers):
  GPT2Tokenizer      models/gpt2/tokenization_gpt2.py: bytes_to_unicode, get_pairs, bpe, _tokenize
                     (the pre-tokenizer regex `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+|
                     ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+`, here a hand-written scanner because the
                     `regex` module is not installed), _convert_token_to_id (unknown -> unk_token),
                     convert_tokens_to_string; PreTrainedTokenizer.tokenize splits the added token
                     <|endoftext|> off the text first.
  special tokens     what tokenizer(text)["input_ids"] adds, as AutoTokenizer.from_pretrained(folder)
                     builds the tokenizer: with tokenizer.json, the fast tokenizer, whose post-processor
                     (tokenizers' processors: ByteLevel adds nothing, TemplateProcessing's `single`
                     template puts its special tokens' ids around the text's, Sequence runs each in
                     turn) decides; without it, GPT2Tokenizer.build_inputs_with_special_tokens:
                     [bos_token_id] + ids when tokenizer_config.json's add_bos_token is true (default
                     false: GPT-2's tokenizer adds nothing; GPT2Converter writes that same template
                     for add_bos_token when it converts the slow tokenizer to a fast one).
  Conv1D             pytorch_utils.py: y = addmm(bias, x, weight), weight [nx, nf] = [in, out].
  GPT2Attention      c_attn(x).split(embed_dim) -> q, k, v; _split_heads; _attn /
                     eager_attention_forward (q kᵀ, / sqrt(head_dim) if scale_attn_weights,
                     / (layer_idx + 1) if scale_attn_by_inverse_layer_idx, causal mask
                     torch.where(bias, w, finfo.min), softmax); _upcast_and_reordered_attn
                     (reorder_and_upcast_attn: the scale as baddbmm's alpha, float32); _merge_heads;
                     c_proj.
  GPT2MLP            c_proj(act(c_fc(x))), act = ACT2FN[activation_function] (activations.py:
                     gelu_new = NewGELUActivation, gelu, gelu_pytorch_tanh, relu).
  GPT2Block          pre-LN: x + attn(ln_1(x)), then x + mlp(ln_2(x)); n_inner null -> 4·n_embd.
  GPT2Model.forward  wte(ids) + wpe(0..T-1), the blocks, ln_f; GPT2LMHeadModel: lm_head (no bias),
                     tied to wte.
  generation         generation/utils.py GenerationMixin._sample (do_sample false) and _beam_search,
                     with decoder_prompt_len = the prompt's length (a decoder-only model's input_ids
                     are its prompt: the tokenizer's ids, as they are). Without input_ids (an empty
                     prompt), _maybe_initialize_input_ids_for_generation starts from [bos_token_id]
                     (a ValueError where the config has none). hf_marian.py mirrors those loops for an encoder-decoder, whose
                     decoder prefix is the one start token; run with the prompt's last token as that
                     start, the rest of the prompt handed through in place of the encoder output
                     (PromptAsDecoderStart below) and max_length lowered by the P - 1 prompt tokens it
                     does not see, they compute exactly what _sample and _beam_search compute on the
                     whole prompt. pad_token_id is null in GPT-2's configs; generate() then uses
                     eos_token_id.

The checks run the model on generate()'s input_ids: the tokenizer's ids of the prompt, with
whatever special token the snapshot's tokenizer adds (GPT-2's: none), or [bos_token_id] for an
empty prompt. Every value is float32, as the PyTorch model computes it; the whole prefix is recomputed at every
step instead of a key/value cache (equal to float32 rounding, the same decisions).
"""

import json
import math
import os
import re
import unicodedata

import torch
import torch.nn.functional as F

import hf_marian
from attnscope_ref import safetensors_io

ENDOFTEXT = "<|endoftext|>"

# ----------------------------------------------------------------------------- tokenizer


def bytes_to_unicode():
    """tokenization_gpt2.bytes_to_unicode: every byte -> a printable character; the printable
    Latin-1 bytes map to themselves, the others to 256, 257, ... in byte order."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2 ** 8):
        if b not in bs:
            bs.append(b)
            cs.append(2 ** 8 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def get_pairs(word):
    return {(word[i], word[i + 1]) for i in range(len(word) - 1)}


# The `regex` module's \s: the Unicode White_Space property.
WHITE_SPACE = set("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | \
    {chr(c) for c in range(0x2000, 0x200B)}
CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def is_letter(c):
    return unicodedata.category(c).startswith("L")


def is_number(c):
    return unicodedata.category(c).startswith("N")


def is_other(c):
    return c not in WHITE_SPACE and not is_letter(c) and not is_number(c)


def pretokenize(text):
    """re.findall(GPT2Tokenizer.pat, text), the alternatives tried in order at each position:
    a contraction; ` ?\\p{L}+`; ` ?\\p{N}+`; ` ?[^\\s\\p{L}\\p{N}]+`; `\\s+(?!\\S)` (a run of white space
    but its last character when a non-space follows); `\\s+`."""
    out, i, n = [], 0, len(text)

    def run(j, accept):
        while j < n and accept(text[j]):
            j += 1
        return j

    while i < n:
        contraction = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
        if contraction:
            end = i + len(contraction)
        else:
            end = None
            start = i + 1 if text[i] == " " and i + 1 < n else i
            for accept in (is_letter, is_number, is_other):
                if accept(text[start]):
                    end = run(start, accept)
                    break
            if end is None:  # white space
                end = run(i, WHITE_SPACE.__contains__)
                if end < n and end - i > 1:
                    end -= 1  # \s+(?!\S): leave the last space to the token that follows
        out.append(text[i:end])
        i = end
    return out


class GPT2Tokenizer:
    """tokenization_gpt2.GPT2Tokenizer with its defaults (add_prefix_space false, unk = bos = eos =
    <|endoftext|>); the special tokens tokenizer(text) adds are the snapshot's (input_ids)."""

    def __init__(self, folder):
        with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
            self.encoder = json.load(f)
        self.decoder = {v: k for k, v in self.encoder.items()}
        self.byte_encoder = bytes_to_unicode()
        self.byte_decoder = {v: k for k, v in self.byte_encoder.items()}
        with open(os.path.join(folder, "merges.txt"), encoding="utf-8") as f:
            bpe_merges = f.read().split("\n")[1:-1]
        bpe_merges = [tuple(merge.split()) for merge in bpe_merges]
        self.bpe_ranks = dict(zip(bpe_merges, range(len(bpe_merges))))
        self.unk_token = self.eos_token = self.bos_token = ENDOFTEXT
        self.eos_token_id = self.bos_token_id = self.encoder[ENDOFTEXT]
        self.all_special_ids = [self.eos_token_id]
        config = read_optional_json(folder, "tokenizer_config.json") or {}
        self.add_bos_token = config.get("add_bos_token", False)
        fast = read_optional_json(folder, "tokenizer.json")
        self.post_processor = fast.get("post_processor") if fast is not None else None
        self.fast = fast is not None

    def bpe(self, token):
        word = tuple(token)
        pairs = get_pairs(word)
        if not pairs:
            return token
        while True:
            bigram = min(pairs, key=lambda pair: self.bpe_ranks.get(pair, float("inf")))
            if bigram not in self.bpe_ranks:
                break
            first, second = bigram
            new_word = []
            i = 0
            while i < len(word):
                try:
                    j = word.index(first, i)
                except ValueError:
                    new_word.extend(word[i:])
                    break
                new_word.extend(word[i:j])
                i = j
                if word[i] == first and i < len(word) - 1 and word[i + 1] == second:
                    new_word.append(first + second)
                    i += 2
                else:
                    new_word.append(word[i])
                    i += 1
            word = tuple(new_word)
            if len(word) == 1:
                break
            pairs = get_pairs(word)
        return " ".join(word)

    def _tokenize(self, text):
        pieces = []
        for token in pretokenize(text):
            token = "".join(self.byte_encoder[b] for b in token.encode("utf-8"))
            pieces.extend(self.bpe(token).split(" "))
        return pieces

    def tokenize(self, text):
        """PreTrainedTokenizer.tokenize: <|endoftext|> written in the text is one piece."""
        pieces = []
        for n, part in enumerate(text.split(ENDOFTEXT)):
            if n:
                pieces.append(ENDOFTEXT)
            if part:
                pieces.extend(self._tokenize(part))
        return pieces

    def encode(self, text):
        """(pieces, ids) of `text`, no special token added."""
        pieces = self.tokenize(text)
        return pieces, [self.encoder.get(p, self.encoder[self.unk_token]) for p in pieces]

    def build_inputs_with_special_tokens(self, token_ids_0):
        """The ids with the special tokens the tokenizer adds to one text: the fast tokenizer's
        post-processor, or GPT2Tokenizer.build_inputs_with_special_tokens."""
        if self.fast:
            return post_process(self.post_processor, list(token_ids_0))
        bos_token_ids = [self.bos_token_id] if self.add_bos_token else []
        return bos_token_ids + list(token_ids_0)

    def input_ids(self, text):
        """tokenizer(text)["input_ids"] (add_special_tokens true)."""
        return self.build_inputs_with_special_tokens(self.encode(text)[1])

    def decode(self, ids, skip_special_tokens=True):
        tokens = [self.decoder[i] for i in ids if not (skip_special_tokens and i in self.all_special_ids)]
        return bytearray(self.byte_decoder[c] for c in "".join(tokens)).decode("utf-8", errors="replace")


def read_optional_json(folder, name):
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def post_process(processor, ids):
    """tokenizers' post-processor of tokenizer.json on one sequence's ids (add_special_tokens):
    ByteLevel leaves the ids (it moves offsets only); Sequence runs its processors in turn;
    TemplateProcessing writes its `single` template, each {"SpecialToken": {id}} as the ids its
    `special_tokens` entry lists and {"Sequence": {"id": "A"}} as the text's ids."""
    if processor is None or processor["type"] == "ByteLevel":
        return ids
    if processor["type"] == "Sequence":
        for step in processor["processors"]:
            ids = post_process(step, ids)
        return ids
    if processor["type"] == "TemplateProcessing":
        out = []
        for piece in processor["single"]:
            (kind, value), = piece.items()
            if kind == "SpecialToken":
                out += processor["special_tokens"][value["id"]]["ids"]
            elif value["id"] == "A":
                out += ids
            else:
                raise ValueError(f"template piece {piece!r} names no single sequence")
        return out
    raise NotImplementedError(f"post-processor {processor['type']!r}")


def generation_config(folder):
    """GenerationConfig.from_pretrained(folder)'s fields: generation_config.json, or config.json
    without it (GenerationConfig.from_model_config)."""
    return read_optional_json(folder, "generation_config.json") or read_optional_json(folder, "config.json")


def generation_input_ids(tok, config, text):
    """The input_ids generate() runs on for `text`: the tokenizer's, or, for a text with none,
    [bos_token_id] of the generation `config` (generate() without input_ids:
    _maybe_initialize_input_ids_for_generation)."""
    ids = tok.input_ids(text)
    if ids:
        return ids
    if config.get("bos_token_id") is None:
        raise ValueError("`bos_token_id` has to be defined when no `input_ids` are provided.")
    return [config["bos_token_id"]]


# ----------------------------------------------------------------------------- model

def gelu_new(x):
    """activations.NewGELUActivation."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


ACT2FN = {"gelu_new": gelu_new, "gelu": F.gelu, "relu": F.relu,
          "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh")}
BUFFERS = re.compile(r"h\.\d+\.attn\.(bias|masked_bias)")  # GPT2Attention's buffers, not weights


def read_state_dict(folder):
    """GPT2LMHeadModel's tensors from model.safetensors or pytorch_model.bin, names without the
    "transformer." prefix (as base_model_prefix loading does), buffers dropped."""
    path = os.path.join(folder, "model.safetensors")
    if os.path.isfile(path):
        state, _ = safetensors_io.load(path)
    else:
        state = torch.load(os.path.join(folder, "pytorch_model.bin"), map_location="cpu", weights_only=True)
    out = {}
    for name, t in state.items():
        name = name.removeprefix("transformer.")
        if not BUFFERS.fullmatch(name):
            out[name] = t.float()
    return out


class GPT2LMHeadModel:
    """GPT2LMHeadModel.forward in eval mode (no dropout), batch of one."""

    def __init__(self, folder, state_dict=None):
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            c = self.config = json.load(f)
        if c.get("model_type") != "gpt2":
            raise ValueError(f"{folder}/config.json: model_type is {c.get('model_type')!r}, not 'gpt2'")
        self.w = read_state_dict(folder) if state_dict is None else state_dict
        self.embed_dim = c["n_embd"]
        self.num_heads = c["n_head"]
        self.head_dim = self.embed_dim // self.num_heads
        self.eps = c.get("layer_norm_epsilon", 1e-5)
        self.act = ACT2FN[c.get("activation_function", "gelu_new")]
        self.scale_attn_weights = c.get("scale_attn_weights", True)
        self.scale_attn_by_inverse_layer_idx = c.get("scale_attn_by_inverse_layer_idx", False)
        self.reorder_and_upcast_attn = c.get("reorder_and_upcast_attn", False)
        # tie_weights(): lm_head.weight is wte.weight
        self.lm_head = self.w.get("lm_head.weight", self.w["wte.weight"])

    def conv1d(self, name, x):
        """pytorch_utils.Conv1D.forward."""
        size_out = x.size()[:-1] + (self.w[name + ".bias"].shape[0],)
        x = torch.addmm(self.w[name + ".bias"], x.view(-1, x.size(-1)), self.w[name + ".weight"])
        return x.view(size_out)

    def layer_norm(self, name, x):
        return F.layer_norm(x, (self.embed_dim,), self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def _attn(self, query, key, value, layer_idx):
        """GPT2Attention._attn / eager_attention_forward, and _upcast_and_reordered_attn."""
        if self.reorder_and_upcast_attn:
            scale_factor = 1.0
            if self.scale_attn_weights:
                scale_factor /= float(value.size(-1)) ** 0.5
            if self.scale_attn_by_inverse_layer_idx:
                scale_factor /= float(layer_idx + 1)
            attn_weights = torch.baddbmm(torch.empty(query.shape[0], query.shape[1], key.shape[1]), query.float(),
                                         key.transpose(-1, -2).float(), beta=0, alpha=scale_factor)
        else:
            attn_weights = torch.matmul(query, key.transpose(-1, -2))
            if self.scale_attn_weights:
                attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
            if self.scale_attn_by_inverse_layer_idx:
                attn_weights = attn_weights / float(layer_idx + 1)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = torch.tril(torch.ones(key_length, key_length, dtype=torch.bool))[
            key_length - query_length: key_length, :key_length]
        mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights, mask_value)
        attn_weights = F.softmax(attn_weights, dim=-1)
        return torch.matmul(attn_weights, value), attn_weights

    def attention(self, p, hidden_states, layer_idx):
        """GPT2Attention.forward: (c_proj output [T, d], weights [H, T, T])."""
        query, key, value = self.conv1d(p + ".c_attn", hidden_states).split(self.embed_dim, dim=-1)
        T = hidden_states.shape[0]
        query, key, value = (t.view(T, self.num_heads, self.head_dim).permute(1, 0, 2) for t in (query, key, value))
        attn_output, attn_weights = self._attn(query, key, value, layer_idx)
        attn_output = attn_output.permute(1, 0, 2).contiguous().view(T, self.embed_dim)  # _merge_heads
        return self.conv1d(p + ".c_proj", attn_output), attn_weights

    def mlp(self, p, hidden_states):
        """GPT2MLP.forward."""
        return self.conv1d(p + ".c_proj", self.act(self.conv1d(p + ".c_fc", hidden_states)))

    def forward(self, input_ids):
        """GPT2Model.forward + lm_head: (logits [T, V], attentions [L][H, T, T], hidden_states [L+1][T, d])."""
        ids = torch.tensor(input_ids)
        if len(input_ids) > self.config["n_positions"]:
            raise ValueError(f"{len(input_ids)} tokens exceed n_positions {self.config['n_positions']}")
        hidden_states = self.w["wte.weight"][ids] + self.w["wpe.weight"][torch.arange(len(input_ids))]
        all_hidden_states, attentions = [hidden_states], []
        for i in range(self.config["n_layer"]):
            p = f"h.{i}"
            residual = hidden_states
            attn_output, weights = self.attention(p + ".attn", self.layer_norm(p + ".ln_1", hidden_states), i)
            hidden_states = attn_output + residual
            residual = hidden_states
            hidden_states = self.layer_norm(p + ".ln_2", hidden_states)
            feed_forward_hidden_states = self.mlp(p + ".mlp", hidden_states)
            hidden_states = residual + feed_forward_hidden_states
            attentions.append(weights)
            all_hidden_states.append(hidden_states)
        hidden_states = self.layer_norm("ln_f", hidden_states)
        return F.linear(hidden_states, self.lm_head), attentions, all_hidden_states


# ----------------------------------------------------------------------------- generation

class PromptAsDecoderStart:
    """The model seen through hf_marian's generation loops: the prompt's last token is the decoder
    start, the tokens before it are handed through encode() in place of an encoder output."""

    def __init__(self, model):
        self.model = model
        self.lm_head = model.lm_head

    def encode(self, input_ids):
        return list(input_ids[:-1]), None

    def decode(self, decoder_input_ids, earlier_prompt):
        return self.model.forward(earlier_prompt + list(decoder_input_ids))[:1]


class GenerationConfig:
    """The fields hf_marian's loops read, for the prompt `input_ids`: generate()'s max_length counts
    the whole prompt, the loops count their one start token. `eos` is an id or a list of ids; without
    a pad_token_id generate() pads with the (first) eos id, which changes no result."""

    def __init__(self, eos, input_ids, max_new_tokens, num_beams=1, length_penalty=1.0, early_stopping=False):
        self.decoder_start_token_id = input_ids[-1]  # PromptAsDecoderStart
        self.eos_token_id = eos
        self.pad_token_id = hf_marian.eos_token_ids(self)[0]
        self.bad_words_ids = self.forced_eos_token_id = None
        self.renormalize_logits = False
        self.num_beams, self.length_penalty, self.early_stopping = num_beams, length_penalty, early_stopping
        self.max_length = max_new_tokens + 1  # (len(input_ids) + max_new_tokens) - (len(input_ids) - 1)


def greedy(model, input_ids, max_new_tokens):
    """generate(input_ids, do_sample=False, num_beams=1, max_new_tokens=...): (new ids, sum of their
    logits as chosen)."""
    eos = model.config["eos_token_id"]
    gen = GenerationConfig(eos, input_ids, max_new_tokens)
    return hf_marian.greedy(PromptAsDecoderStart(model), gen, input_ids)


def beam_search(model, input_ids, max_new_tokens, num_beams, num_return_sequences=None, length_penalty=1.0,
                early_stopping=False):
    """generate(input_ids, num_beams=..., max_new_tokens=..., length_penalty, early_stopping):
    [(new ids, sequences_score)], best first."""
    eos = model.config["eos_token_id"]
    gen = GenerationConfig(eos, input_ids, max_new_tokens, num_beams, length_penalty, early_stopping)
    return hf_marian.beam_search(PromptAsDecoderStart(model), gen, input_ids, num_return_sequences or num_beams)
