#!/usr/bin/env python3
"""Write six small random Llama-family checkpoints in the exact Hugging Face snapshot layout under
tests/data/hf/ (deterministic; run with /usr/bin/python3, which has torch):

  llama-3.2-tiny/       meta-llama/Llama-3.2-1B-Instruct's shape: LlamaForCausalLM, tied embeddings,
                        rope_scaling llama3 (factor 32, low_freq_factor 1, high_freq_factor 8,
                        original_max_position_embeddings 64), 4 query heads on 2 key/value heads,
                        head_dim written out, BF16, eos_token_id a list
  llama-3.1-mqa-tiny/   meta-llama/Llama-3.1-8B-Instruct's field set with one key/value head (MQA),
                        an untied lm_head, rope_scaling llama3 (factor 8, 1, 4, 64), BF16, saved in
                        two shards (model-0000N-of-00002.safetensors + model.safetensors.index.json)
  smollm2-tiny/         HuggingFaceTB/SmolLM2-135M (the base model: no chat template, no BOS added):
                        Llama, tied, rope_theta 100000, no scaling, 6 query heads on 2, 3 layers, BF16
  tinyllama-tiny/       TinyLlama/TinyLlama-1.1B-Chat-v1.0: Llama, untied lm_head, rope_theta 10000,
                        4 heads on 2, F32
  qwen2.5-tiny/         Qwen/Qwen2.5-0.5B-Instruct: Qwen2ForCausalLM, q/k/v biases, tied, 8 heads on
                        2, rope_theta 1e6, BF16, vocab_size larger than the tokenizer (padded rows)
  qwen3-tiny/           Qwen/Qwen3-0.6B: Qwen3ForCausalLM, per-head q_norm / k_norm, head_dim 32 with
                        hidden_size 64 and 4 heads (not hidden / heads), no attention bias, tied, BF16

Each folder holds what save_pretrained writes for the model and its fast tokenizer: config.json,
generation_config.json (both json.dumps(indent=2, sort_keys=True) + newline, as
PretrainedConfig.to_json_string writes them), the weights, tokenizer.json, tokenizer_config.json
(sort_keys, with added_tokens_decoder) and special_tokens_map.json. config.json carries the public
model's own field set, dimensions scaled down (SPECS); fields the public file lacks (Qwen2.5 has no
rope_scaling, attention_bias or head_dim) are left out, so a reader must apply the configuration
class's defaults as transformers does.

Weights (HF state-dict names, nn.Linear layout [out, in], safetensors with {"format": "pt"}
metadata and the tensors sorted by name, as safetensors' save_file orders one dtype):

    model.embed_tokens.weight [V, d]                 lm_head.weight [V, d] (untied models only:
    model.layers.N.input_layernorm.weight [d]        save_pretrained drops a tied one)
    model.layers.N.self_attn.q_proj.weight [H*hd, d]     (+ .bias [H*hd], Qwen2)
    model.layers.N.self_attn.k_proj.weight [KV*hd, d]    (+ .bias [KV*hd], Qwen2)
    model.layers.N.self_attn.v_proj.weight [KV*hd, d]    (+ .bias [KV*hd], Qwen2)
    model.layers.N.self_attn.o_proj.weight [d, H*hd]
    model.layers.N.self_attn.q_norm.weight [hd], k_norm.weight [hd]   (Qwen3)
    model.layers.N.post_attention_layernorm.weight [d]
    model.layers.N.mlp.gate_proj.weight [F, d], up_proj.weight [F, d], down_proj.weight [d, F]
    model.norm.weight [d]

The sharded snapshot is split as save_pretrained(max_shard_size=MAX_SHARD_SIZE) splits it
(huggingface_hub's split_torch_state_dict_into_shards: tensors in the model's registration order,
a new shard when the next tensor would pass the limit); model.safetensors.index.json is
{"metadata": {"total_size": bytes of every tensor}, "weight_map": {name: file}}, indent 2, sorted.

Tokenizers: byte-level BPE (Llama 3: its Split regex, ignore_merges, a TemplateProcessing
post-processor that adds <|begin_of_text|>, 16 special tokens in Llama 3's order at the top of the
vocabulary; Qwen2 / Qwen3: NFC, Qwen's regex (single digits), no BOS, Qwen's special tokens after
the vocabulary, Qwen3's merges in the newer [a, b] pair form; SmolLM2: Digits + ByteLevel regex, its
17 special tokens first) and SentencePiece-style BPE for TinyLlama (Prepend + Replace "▁"
normalizer, byte_fallback with <0x00>..<0xFF>, TemplateProcessing adding <s>). The merges are
learned by this script (learn_bpe, a plain BPE: the most frequent pair first, ties to the smaller
pair) on CORPUS, as many as fill the vocabulary. The files are meant to be valid for Hugging Face's
tokenizers, not a tokenizer test: the tokenizer goldens are written elsewhere.

Random weights (seeded per snapshot) with standard deviations chosen so that attention is far from
uniform and logits spread over several units; the eos rows of the output matrix are scaled
(eos_gain) so that some continuations end before max_new_tokens. make_hf_llama_goldens.py --check
measures both.
"""

import argparse
import json
import math
import os
import sys
import unicodedata
from collections import Counter

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models", "reference"))

import hf_gpt2  # noqa: E402
from attnscope_ref import safetensors_io  # noqa: E402

OUT = os.path.join(ROOT, "tests", "data", "hf")
MAX_SHARD_SIZE = 500_000  # bytes: save_pretrained(max_shard_size="500KB")

# The text the merges are learned on: plain prose with numbers, punctuation, contractions, new
# lines and a few accented letters.
CORPUS = """\
The old lighthouse keeper climbed the stairs every evening at 7 o'clock. There were 132 steps,
and he counted each one, because counting kept his mind quiet. At the top he lit the lamp, wiped
the glass, and watched the ships pass along the coast. Some nights there were 3 ships, some nights
there were 12, and in winter there were none at all.

His daughter lived in the town below. She ran a small café near the harbour, where fishermen came
for coffee and bread before dawn. "You're up early," she'd say, and they'd laugh: "We're always up
early!" She wrote the prices on a board: coffee 2.50, bread 1.20, soup 4.75. In the spring she
painted the board green; in the autumn she painted it blue again.

The town had a library with 4,096 books, a school with 58 children, and a market on Saturdays.
People sold apples, cheese, fish, honey and wool. A naïve visitor once asked why the market closed
at noon. "Because the tide turns," said the baker, "and the boats go out." That was the answer to
most questions in the town: the tide, the boats, the weather.

In 1987 a storm broke the great window of the lighthouse. The keeper wrote a letter to the
council, asking for new glass. They didn't answer for six months. When the glass finally came, it
was the wrong size, and he had to cut it himself. It took him 9 days. He said it was the best work
he had ever done, and nobody argued.

Now the lighthouse runs by itself. A machine turns the lamp, a sensor reads the fog, and a small
computer sends reports every 15 minutes. The keeper's daughter still climbs the stairs on Sundays.
She counts the steps, as her father did: one, two, three, all the way to 132.
"""


# ----------------------------------------------------------------------------- pre-tokenizers

is_letter, is_number = hf_gpt2.is_letter, hf_gpt2.is_number


def run_of(text, i, accept, limit=None):
    """The end of the run of characters `accept` takes from i (at most `limit` of them)."""
    j = i
    while j < len(text) and accept(text[j]) and (limit is None or j - i < limit):
        j += 1
    return j


def split_llama3(text, digits=3):
    """re.findall of Llama 3's Split pattern (Qwen2's with digits=1), alternatives tried in order:
    (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\\r\\n\\p{L}\\p{N}]?\\p{L}+ | \\p{N}{1,3} |
     ?[^\\s\\p{L}\\p{N}]+[\\r\\n]* | \\s*[\\r\\n]+ | \\s+(?!\\S) | \\s+"""
    space = hf_gpt2.WHITE_SPACE.__contains__
    other = hf_gpt2.is_other
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        low = text[i:i + 3].lower()
        if c == "'" and (low[:3] in ("'re", "'ve", "'ll") or low[:2] in ("'s", "'t", "'m", "'d")):
            end = i + (3 if low[:3] in ("'re", "'ve", "'ll") else 2)
        elif is_letter(c):
            end = run_of(text, i, is_letter)
        elif c not in "\r\n" and not is_number(c) and i + 1 < n and is_letter(text[i + 1]):
            end = run_of(text, i + 1, is_letter)
        elif is_number(c):
            end = run_of(text, i, is_number, digits)
        elif other(c) or (c == " " and i + 1 < n and other(text[i + 1])):
            end = run_of(text, i + 1 if c == " " else i, other)
            end = run_of(text, end, lambda ch: ch in "\r\n")
        else:  # white space
            end = run_of(text, i, space)
            newline_end = max((k + 1 for k in range(i, end) if text[k] in "\r\n"), default=None)
            if newline_end is not None:
                end = newline_end  # \s*[\r\n]+
            elif end < n and end - i > 1:
                end -= 1  # \s+(?!\S)
        out.append(text[i:end])
        i = end
    return out


def split_qwen2(text):
    return split_llama3(unicodedata.normalize("NFC", text), digits=1)


def split_smollm2(text):
    """Digits(individual_digits) then ByteLevel's GPT-2 pattern on each piece."""
    pieces, start = [], 0
    for i, c in enumerate(text):
        if is_number(c):
            pieces += [text[start:i], c] if start < i else [c]
            start = i + 1
    if start < len(text):
        pieces.append(text[start:])
    return [chunk for piece in pieces for chunk in hf_gpt2.pretokenize(piece)]


# ----------------------------------------------------------------------------- BPE

def learn_bpe(words, n_merges):
    """Plain BPE over `words` ({tuple of symbols: count}): the merges, most frequent pair first (ties
    to the smaller pair), stopping when `n_merges` new symbols exist."""
    words = dict(words)
    merges, made = [], set()
    while len(made) < n_merges:
        pairs = Counter()
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += count
        if not pairs:
            raise ValueError(f"the corpus runs out of pairs after {len(made)} merges")
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        made.add(best[0] + best[1])
        merged = {}
        for word, count in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + count
        words = merged
    return merges


def apply_merges(symbols, ranks):
    """HF's BPE on one word: the lowest-ranked pair, leftmost first, until none applies."""
    symbols = list(symbols)
    while len(symbols) > 1:
        rank, i = min((ranks.get(pair, math.inf), i) for i, pair in enumerate(zip(symbols, symbols[1:])))
        if rank == math.inf:
            break
        symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
    return symbols


BYTE_ENCODER = hf_gpt2.bytes_to_unicode()  # byte -> character, in GPT-2's (and Llama 3's, Qwen's) id order


class ByteLevelBPE:
    """A byte-level BPE learned on CORPUS: vocab (token -> id), merges, and an encoder for the prompts."""

    def __init__(self, split, n_regular, first_id=0, ignore_merges=False):
        self.split, self.ignore_merges = split, ignore_merges
        words = Counter(tuple(self.to_chars(chunk)) for chunk in split(CORPUS))
        self.merges = learn_bpe(words, n_regular - 256)
        tokens = list(BYTE_ENCODER.values()) + list(dict.fromkeys(a + b for a, b in self.merges))
        self.vocab = {token: first_id + i for i, token in enumerate(tokens)}
        self.ranks = {pair: rank for rank, pair in enumerate(self.merges)}

    @staticmethod
    def to_chars(chunk):
        return "".join(BYTE_ENCODER[b] for b in chunk.encode("utf-8"))

    def encode(self, text):
        ids = []
        for chunk in self.split(text):
            chars = self.to_chars(chunk)
            pieces = [chars] if self.ignore_merges and chars in self.vocab else apply_merges(chars, self.ranks)
            ids += [self.vocab[p] for p in pieces]
        return ids


class SentencePieceBPE:
    """A SentencePiece-style BPE (TinyLlama's Llama 2 tokenizer): <unk> <s> </s>, the 256 byte pieces,
    the merged pieces in merge order, then the corpus's characters, most frequent first."""

    def __init__(self, size):
        words = Counter(tuple("\u2581" + w) for w in CORPUS.split())
        chars = Counter()
        for word, count in words.items():
            for c in word:
                chars[c] += count
        alphabet = sorted(chars, key=lambda c: (-chars[c], c))
        specials = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
        self.merges = learn_bpe(words, size - len(specials) - len(alphabet))
        tokens = specials + list(dict.fromkeys(a + b for a, b in self.merges)) + alphabet
        self.vocab = {token: i for i, token in enumerate(tokens)}
        self.ranks = {pair: rank for rank, pair in enumerate(self.merges)}

    def encode(self, text):
        """Prepend "▁", spaces to "▁", one word for the whole text; a character outside the vocabulary
        falls back to its UTF-8 bytes, which no merge joins. Prepend leaves an empty text empty."""
        normalized = "\u2581" + text.replace(" ", "\u2581") if text else ""
        ids, run = [], []
        for c in normalized + "\0":  # \0: the end, which flushes the last run
            if c in self.vocab:
                run.append(c)
                continue
            ids += [self.vocab[p] for p in apply_merges(run, self.ranks)]
            run = []
            if c != "\0":
                ids += [self.vocab[f"<0x{b:02X}>"] for b in c.encode("utf-8")]
        return ids


# ----------------------------------------------------------------------------- tokenizer files

def added_token(token_id, content, special=True):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": special}


def added_tokens_decoder(added):
    return {str(t["id"]): {k: t[k] for k in ("content", "lstrip", "normalized", "rstrip", "single_word", "special")}
            for t in added}


def token_map(content):
    """special_tokens_map.json's form of a token."""
    return {"content": content, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False}


def bpe_model(vocab, merges, pair_lists=False, **options):
    """tokenizers' BPE model as it serialises (fields in its order); merges as "a b" strings, or as
    [a, b] lists, the form newer versions of tokenizers write."""
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False}
    model.update(options)
    model["vocab"] = vocab
    model["merges"] = [[a, b] for a, b in merges] if pair_lists else [f"{a} {b}" for a, b in merges]
    return model


def byte_level(add_prefix_space, trim_offsets, use_regex, kind="ByteLevel"):
    return {"type": kind, "add_prefix_space": add_prefix_space, "trim_offsets": trim_offsets, "use_regex": use_regex}


def template_with_bos(bos, bos_id):
    """TemplateProcessing that puts `bos` before each sequence."""
    def special(type_id):
        return {"SpecialToken": {"id": bos, "type_id": type_id}}

    def sequence(name, type_id):
        return {"Sequence": {"id": name, "type_id": type_id}}
    return {"type": "TemplateProcessing", "single": [special(0), sequence("A", 0)],
            "pair": [special(0), sequence("A", 0), special(1), sequence("B", 1)],
            "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}}}


def tokenizer_json(added, normalizer, pre_tokenizer, post_processor, decoder, model):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer, "post_processor": post_processor, "decoder": decoder, "model": model}


LLAMA3_PATTERN = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                  "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
QWEN2_PATTERN = LLAMA3_PATTERN.replace("\\p{N}{1,3}", "\\p{N}")
LLAMA3_SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                   "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>",
                   "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"] + \
    [f"<|reserved_special_token_{n}|>" for n in range(3, 8)]
# Llama 3's own template (Meta-Llama-3-8B-Instruct's): a header per message, <|eot_id|> after each.
LLAMA3_CHAT_TEMPLATE = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
    "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}"
    "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}")
QWEN_SPECIALS = [("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True), ("<|object_ref_start|>", True),
                 ("<|object_ref_end|>", True), ("<|box_start|>", True), ("<|box_end|>", True), ("<|quad_start|>", True),
                 ("<|quad_end|>", True), ("<|vision_start|>", True), ("<|vision_end|>", True),
                 ("<|vision_pad|>", True), ("<|image_pad|>", True), ("<|video_pad|>", True), ("<tool_call>", False),
                 ("</tool_call>", False), ("<|fim_prefix|>", False), ("<|fim_middle|>", False),
                 ("<|fim_suffix|>", False), ("<|fim_pad|>", False), ("<|repo_name|>", False), ("<|file_sep|>", False)]
QWEN3_SPECIALS = QWEN_SPECIALS + [("<tool_response>", False), ("</tool_response>", False), ("<think>", False),
                                  ("</think>", False)]


def im_chat_template(default_system):
    """The <|im_start|>role ... <|im_end|> template of Qwen2 and SmolLM2-Instruct, with the model's
    default system message."""
    return ("{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
            "{{ '<|im_start|>system\n" + default_system + "<|im_end|>\n' }}{% endif %}"
            "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
            "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


QWEN3_CHAT_TEMPLATE = (
    "{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\n' + message['content'] + "
    "'<|im_end|>' + '\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\n\n</think>\n\n' }}{%- endif %}"
    "{%- endif %}")
# TinyLlama-1.1B-Chat-v1.0's (Zephyr's) template.
ZEPHYR_CHAT_TEMPLATE = (
    "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] + "
    "eos_token }}\n{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + eos_token }}\n"
    "{% elif message['role'] == 'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n"
    "{% endif %}\n{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}")
SMOLLM2_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<repo_name>", "<reponame>", "<file_sep>",
                    "<filename>", "<gh_stars>", "<issue_start>", "<issue_comment>", "<issue_closed>",
                    "<jupyter_start>", "<jupyter_text>", "<jupyter_code>", "<jupyter_output>", "<jupyter_script>",
                    "<empty_output>"]


class Tokenizer:
    """One snapshot's tokenizer: the three files' contents, the special ids the configs name and an
    encoder for the prompts (add_special_tokens=True)."""

    def __init__(self, tokenizer, config, special_map, bpe, bos_id=None):
        self.tokenizer, self.config, self.special_map, self.bpe, self.bos_id = tokenizer, config, special_map, bpe, bos_id
        self.size = len(bpe.vocab) + sum(t["content"] not in bpe.vocab for t in tokenizer["added_tokens"])

    def encode(self, text):
        return ([self.bos_id] if self.bos_id is not None else []) + self.bpe.encode(text)


def llama3_tokenizer(vocab_size, max_length):
    bpe = ByteLevelBPE(split_llama3, vocab_size - len(LLAMA3_SPECIALS), ignore_merges=True)
    first = len(bpe.vocab)
    added = [added_token(first + i, t) for i, t in enumerate(LLAMA3_SPECIALS)]
    ids = {t["content"]: t["id"] for t in added}
    bos = "<|begin_of_text|>"
    tok = tokenizer_json(
        added, None,
        {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN}, "behavior": "Isolated", "invert": False},
            byte_level(False, True, False)]},
        {"type": "Sequence", "processors": [byte_level(True, False, True), template_with_bos(bos, ids[bos])]},
        byte_level(True, True, True),
        bpe_model(bpe.vocab, bpe.merges, ignore_merges=True))
    config = {"added_tokens_decoder": added_tokens_decoder(added), "bos_token": bos,
              "chat_template": LLAMA3_CHAT_TEMPLATE, "clean_up_tokenization_spaces": True, "eos_token": "<|eot_id|>",
              "model_input_names": ["input_ids", "attention_mask"], "model_max_length": max_length,
              "tokenizer_class": "PreTrainedTokenizerFast"}
    special_map = {"bos_token": token_map(bos), "eos_token": token_map("<|eot_id|>")}
    return Tokenizer(tok, config, special_map, bpe, ids[bos]), ids


def qwen_tokenizer(n_regular, specials, default_system, chat_template, max_length, pair_lists):
    bpe = ByteLevelBPE(split_qwen2, n_regular)
    added = [added_token(n_regular + i, t, special) for i, (t, special) in enumerate(specials)]
    ids = {t["content"]: t["id"] for t in added}
    tok = tokenizer_json(
        added, {"type": "NFC"},
        {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_PATTERN}, "behavior": "Isolated", "invert": False},
            byte_level(False, False, False)]},
        byte_level(False, False, False), byte_level(False, False, False),
        bpe_model(bpe.vocab, bpe.merges, pair_lists=pair_lists, continuing_subword_prefix="", end_of_word_suffix="",
                  ignore_merges=False))
    extra = [t for t, special in specials[1:] if special]
    config = {"add_bos_token": False, "add_prefix_space": False, "added_tokens_decoder": added_tokens_decoder(added),
              "additional_special_tokens": extra, "bos_token": None,
              "chat_template": chat_template or im_chat_template(default_system),
              "clean_up_tokenization_spaces": False, "eos_token": "<|im_end|>", "errors": "replace",
              "model_max_length": max_length, "pad_token": "<|endoftext|>", "split_special_tokens": False,
              "tokenizer_class": "Qwen2Tokenizer", "unk_token": None}
    special_map = {"additional_special_tokens": extra, "eos_token": token_map("<|im_end|>"),
                   "pad_token": token_map("<|endoftext|>")}
    return Tokenizer(tok, config, special_map, bpe), ids


def smollm2_tokenizer(vocab_size, max_length):
    bpe = ByteLevelBPE(split_smollm2, vocab_size - len(SMOLLM2_SPECIALS), first_id=len(SMOLLM2_SPECIALS))
    added = [added_token(i, t) for i, t in enumerate(SMOLLM2_SPECIALS)]
    vocab = {t: i for i, t in enumerate(SMOLLM2_SPECIALS)}
    vocab.update(bpe.vocab)
    bpe.vocab = vocab
    tok = tokenizer_json(
        added, None,
        {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True},
                                               byte_level(False, True, True)]},
        byte_level(True, False, True), byte_level(True, True, True), bpe_model(vocab, bpe.merges))
    extra = list(SMOLLM2_SPECIALS)
    config = {"add_prefix_space": False, "added_tokens_decoder": added_tokens_decoder(added),
              "additional_special_tokens": extra, "bos_token": "<|endoftext|>", "clean_up_tokenization_spaces": False,
              "eos_token": "<|endoftext|>", "model_max_length": max_length, "tokenizer_class": "GPT2Tokenizer",
              "unk_token": "<|endoftext|>", "vocab_size": vocab_size}
    special_map = {"additional_special_tokens": extra, "bos_token": token_map("<|endoftext|>"),
                   "eos_token": token_map("<|endoftext|>"), "unk_token": token_map("<|endoftext|>")}
    return Tokenizer(tok, config, special_map, bpe), {t: i for i, t in enumerate(SMOLLM2_SPECIALS)}


def tinyllama_tokenizer(vocab_size, max_length):
    bpe = SentencePieceBPE(vocab_size)
    added = [added_token(i, t) for i, t in enumerate(["<unk>", "<s>", "</s>"])]
    tok = tokenizer_json(
        added,
        {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
                                              {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        None, template_with_bos("<s>", 1),
        {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                                          {"type": "ByteFallback"}, {"type": "Fuse"},
                                          {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        bpe_model(bpe.vocab, bpe.merges, unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    config = {"add_bos_token": True, "add_eos_token": False, "added_tokens_decoder": added_tokens_decoder(added),
              "bos_token": "<s>", "chat_template": ZEPHYR_CHAT_TEMPLATE, "clean_up_tokenization_spaces": False,
              "eos_token": "</s>", "legacy": False, "model_max_length": max_length, "pad_token": "</s>",
              "padding_side": "right", "sp_model_kwargs": {}, "tokenizer_class": "LlamaTokenizer",
              "unk_token": "<unk>", "use_default_system_prompt": False}
    special_map = {"bos_token": token_map("<s>"), "eos_token": token_map("</s>"), "pad_token": token_map("</s>"),
                   "unk_token": token_map("<unk>")}
    return Tokenizer(tok, config, special_map, bpe, 1), {"<unk>": 0, "<s>": 1, "</s>": 2}


# ----------------------------------------------------------------------------- configs

def llama3_rope(factor, low, high, original):
    return {"factor": factor, "high_freq_factor": high, "low_freq_factor": low,
            "original_max_position_embeddings": original, "rope_type": "llama3"}


def llama_config(s, ids, **fields):
    """LlamaConfig's fields as the public Llama 3 / SmolLM2 / TinyLlama config.json files carry them."""
    config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
              "hidden_act": "silu", "hidden_size": s["hidden"], "initializer_range": 0.02,
              "intermediate_size": s["ffn"], "mlp_bias": False, "model_type": "llama",
              "num_attention_heads": s["heads"], "num_hidden_layers": s["layers"],
              "num_key_value_heads": s["kv_heads"], "pretraining_tp": 1, "rms_norm_eps": 1e-05,
              "tie_word_embeddings": s["tied"], "use_cache": True, "vocab_size": s["vocab"]}
    config.update(fields)
    return config


def qwen_config(s, ids, kind, **fields):
    config = {"architectures": ["Qwen2ForCausalLM" if kind == "qwen2" else "Qwen3ForCausalLM"],
              "attention_dropout": 0.0, "bos_token_id": ids["<|endoftext|>"], "eos_token_id": ids["<|im_end|>"],
              "hidden_act": "silu", "hidden_size": s["hidden"], "initializer_range": 0.02,
              "intermediate_size": s["ffn"], "max_window_layers": s["layers"], "model_type": kind,
              "num_attention_heads": s["heads"], "num_hidden_layers": s["layers"],
              "num_key_value_heads": s["kv_heads"], "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
              "tie_word_embeddings": s["tied"], "torch_dtype": "bfloat16", "use_cache": True,
              "use_sliding_window": False, "vocab_size": s["vocab"]}
    config.update(fields)
    return config


def llama32(s, tok_ids):
    eos = [tok_ids["<|end_of_text|>"], tok_ids["<|eom_id|>"], tok_ids["<|eot_id|>"]]
    bos = tok_ids["<|begin_of_text|>"]
    config = llama_config(s, tok_ids, bos_token_id=bos, eos_token_id=eos, head_dim=s["hidden"] // s["heads"],
                          max_position_embeddings=1024, rope_scaling=llama3_rope(32.0, 1.0, 8.0, 64),
                          rope_theta=500000.0, torch_dtype="bfloat16", transformers_version="4.45.0.dev0")
    generation = {"bos_token_id": bos, "do_sample": True, "eos_token_id": eos, "temperature": 0.6, "top_p": 0.9,
                  "transformers_version": "4.45.0.dev0"}
    return config, generation


def llama31(s, tok_ids):
    eos = [tok_ids["<|end_of_text|>"], tok_ids["<|eom_id|>"], tok_ids["<|eot_id|>"]]
    bos = tok_ids["<|begin_of_text|>"]
    config = llama_config(s, tok_ids, bos_token_id=bos, eos_token_id=eos, max_position_embeddings=1024,
                          rope_scaling=llama3_rope(8.0, 1.0, 4.0, 64), rope_theta=500000.0, torch_dtype="bfloat16",
                          transformers_version="4.42.3")
    generation = {"bos_token_id": bos, "do_sample": True, "eos_token_id": eos, "temperature": 0.6, "top_p": 0.9,
                  "transformers_version": "4.42.3"}
    return config, generation


def smollm2(s, tok_ids):
    endoftext = tok_ids["<|endoftext|>"]
    config = llama_config(s, tok_ids, bos_token_id=endoftext, eos_token_id=endoftext,
                          initializer_range=0.041666666666666664, is_llama_config=True, max_position_embeddings=8192,
                          rope_interleaved=False, rope_scaling=None, rope_theta=100000, torch_dtype="bfloat16",
                          transformers_version="4.40.1")
    del config["mlp_bias"]  # its transformers version predates the field
    generation = {"_from_model_config": True, "bos_token_id": endoftext, "eos_token_id": endoftext,
                  "transformers_version": "4.40.1"}
    return config, generation


def tinyllama(s, tok_ids):
    config = llama_config(s, tok_ids, bos_token_id=1, eos_token_id=2, max_position_embeddings=2048,
                          rope_scaling=None, rope_theta=10000.0, torch_dtype="float32",
                          transformers_version="4.35.0")
    del config["mlp_bias"], config["attention_dropout"]  # TinyLlama's config.json predates both fields
    generation = {"bos_token_id": 1, "eos_token_id": 2, "max_length": 2048, "pad_token_id": 0,
                  "transformers_version": "4.35.0"}
    return config, generation


def qwen25(s, tok_ids):
    config = qwen_config(s, tok_ids, "qwen2", max_position_embeddings=32768, sliding_window=32768,
                         transformers_version="4.43.1")
    generation = {"bos_token_id": tok_ids["<|endoftext|>"], "do_sample": True,
                  "eos_token_id": [tok_ids["<|im_end|>"], tok_ids["<|endoftext|>"]],
                  "pad_token_id": tok_ids["<|endoftext|>"], "repetition_penalty": 1.1, "temperature": 0.7,
                  "top_k": 20, "top_p": 0.8, "transformers_version": "4.37.0"}
    return config, generation


def qwen3(s, tok_ids):
    config = qwen_config(s, tok_ids, "qwen3", attention_bias=False, head_dim=s["head_dim"],
                         max_position_embeddings=40960, rope_scaling=None, sliding_window=None,
                         transformers_version="4.51.0")
    generation = {"bos_token_id": tok_ids["<|endoftext|>"], "do_sample": True,
                  "eos_token_id": [tok_ids["<|im_end|>"], tok_ids["<|endoftext|>"]],
                  "pad_token_id": tok_ids["<|endoftext|>"], "temperature": 0.6, "top_k": 20, "top_p": 0.95,
                  "transformers_version": "4.51.0"}
    return config, generation


# The weights' standard deviations (random_state_dict). A tied model's embedding is also its output
# matrix: a large one makes each position predict its own token (the residual stream carries it to
# the output), so a tied model's rows are small (TIED_EMBED) and its final norm's weights large
# (TIED_NORM_GAIN), which keeps the logits' spread.
STD = {"embed": 0.5, "qk": 0.2, "vo": 0.15, "gate_up": 0.15, "down": 0.1, "norm": 0.1, "bias": 0.1,
       "lm_head": 0.5}
TIED_EMBED, TIED_NORM_GAIN = 0.15, 3.0
# Qwen3's q_norm / k_norm fix the queries' and keys' size: weights around QK_NORM_GAIN (not 1) keep its
# attention as far from uniform as the others'.
QK_NORM_GAIN = 2.0
# sizes: hidden_size, intermediate_size (ffn), query and key/value heads, head_dim where it is not
# hidden / heads, layers, vocab_size, tie_word_embeddings.
SPECS = {
    "llama-3.2-tiny": {"sizes": {"hidden": 128, "ffn": 256, "heads": 4, "kv_heads": 2, "layers": 2, "vocab": 384,
                                 "tied": True},
                       "tokenizer": lambda s: llama3_tokenizer(s["vocab"], 131072), "config": llama32,
                       "dtype": "BF16", "seed": 3201, "eos_gain": 1.5},
    "llama-3.1-mqa-tiny": {"sizes": {"hidden": 128, "ffn": 384, "heads": 4, "kv_heads": 1, "layers": 2,
                                     "vocab": 384, "tied": False},
                           "tokenizer": lambda s: llama3_tokenizer(s["vocab"], 131072), "config": llama31,
                           "dtype": "BF16", "seed": 3108, "eos_gain": 2.0, "shards": MAX_SHARD_SIZE},
    "smollm2-tiny": {"sizes": {"hidden": 96, "ffn": 256, "heads": 6, "kv_heads": 2, "layers": 3, "vocab": 384,
                               "tied": True},
                     "tokenizer": lambda s: smollm2_tokenizer(s["vocab"], 8192), "config": smollm2,
                     "dtype": "BF16", "seed": 135, "eos_gain": 2.0},
    "tinyllama-tiny": {"sizes": {"hidden": 64, "ffn": 176, "heads": 4, "kv_heads": 2, "layers": 2, "vocab": 384,
                                 "tied": False},
                       "tokenizer": lambda s: tinyllama_tokenizer(s["vocab"], 2048), "config": tinyllama,
                       "dtype": "F32", "seed": 1100, "eos_gain": 2.0},
    "qwen2.5-tiny": {"sizes": {"hidden": 128, "ffn": 320, "heads": 8, "kv_heads": 2, "layers": 2, "vocab": 384,
                               "tied": True},
                     "tokenizer": lambda s: qwen_tokenizer(352, QWEN_SPECIALS,
                                                           "You are Qwen, created by Alibaba Cloud. You are a helpful "
                                                           "assistant.", None, 131072, False),
                     "config": qwen25, "dtype": "BF16", "seed": 2505, "eos_gain": 2.0},
    "qwen3-tiny": {"sizes": {"hidden": 64, "ffn": 192, "heads": 4, "kv_heads": 2, "head_dim": 32, "layers": 2,
                             "vocab": 384, "tied": True},
                   "tokenizer": lambda s: qwen_tokenizer(352, QWEN3_SPECIALS, None, QWEN3_CHAT_TEMPLATE, 131072, True),
                   "config": qwen3, "dtype": "BF16", "seed": 3006, "eos_gain": 2.0},
}


def eos_ids(config, generation):
    eos = generation.get("eos_token_id", config["eos_token_id"])
    return eos if isinstance(eos, list) else [eos]


# ----------------------------------------------------------------------------- weights

def random_state_dict(config, spec, eos, n_tokens):
    """The model's tensors in its registration order (the order save_pretrained shards in). Rows past
    the tokenizer's `n_tokens` (Qwen's padded vocabulary) are zero: no text reaches them and their
    logit is 0, below the best."""
    g = torch.Generator().manual_seed(spec["seed"])
    std = STD
    tied = config["tie_word_embeddings"]
    d, f, layers = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"]
    heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
    hd = config.get("head_dim") or d // heads
    qwen2, qwen3 = config["model_type"] == "qwen2", config["model_type"] == "qwen3"

    def normal(*shape, scale):
        return torch.randn(*shape, generator=g) * scale

    def linear(n_out, n_in, scale):  # `scale` at 64 inputs, less for more, so that outputs do not grow with width
        return normal(n_out, n_in, scale=scale * math.sqrt(64 / n_in))

    def norm(n, mean=1.0):
        return mean + normal(n, scale=std["norm"])

    tensors = {"model.embed_tokens.weight": normal(config["vocab_size"], d, scale=TIED_EMBED if tied else std["embed"])}
    for i in range(layers):
        p = f"model.layers.{i}."
        for name, n_out, scale in (("q_proj", heads * hd, std["qk"]), ("k_proj", kv * hd, std["qk"]),
                                   ("v_proj", kv * hd, std["vo"])):
            tensors[f"{p}self_attn.{name}.weight"] = linear(n_out, d, scale)
            if qwen2:
                tensors[f"{p}self_attn.{name}.bias"] = normal(n_out, scale=std["bias"])
        tensors[f"{p}self_attn.o_proj.weight"] = linear(d, heads * hd, std["vo"])
        if qwen3:
            tensors[f"{p}self_attn.q_norm.weight"] = norm(hd, QK_NORM_GAIN)
            tensors[f"{p}self_attn.k_norm.weight"] = norm(hd, QK_NORM_GAIN)
        tensors[f"{p}mlp.gate_proj.weight"] = linear(f, d, std["gate_up"])
        tensors[f"{p}mlp.up_proj.weight"] = linear(f, d, std["gate_up"])
        tensors[f"{p}mlp.down_proj.weight"] = linear(d, f, std["down"])
        tensors[f"{p}input_layernorm.weight"] = norm(d)
        tensors[f"{p}post_attention_layernorm.weight"] = norm(d)
    tensors["model.norm.weight"] = norm(d, TIED_NORM_GAIN if tied else 1.0)
    output = "model.embed_tokens.weight"
    if not tied:
        tensors["lm_head.weight"] = normal(config["vocab_size"], d, scale=std["lm_head"])
        output = "lm_head.weight"
    tensors[output][eos] *= spec["eos_gain"]
    tensors["model.embed_tokens.weight"][n_tokens:] = 0.0
    tensors[output][n_tokens:] = 0.0
    return tensors


def shard(tensors, max_shard_size):
    """huggingface_hub's split: [{name: tensor}] in order, a new shard when the next tensor passes the limit."""
    shards, current, size = [], {}, 0
    for name, tensor in tensors.items():
        n = tensor.numel() * tensor.element_size()
        if current and size + n > max_shard_size:
            shards.append(current)
            current, size = {}, 0
        current[name] = tensor
        size += n
    return shards + [current]


def write_json(path, obj, sort_keys=True):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n")


def write_weights(folder, tensors, dtype, max_shard_size=None):
    torch_dtype = {"BF16": torch.bfloat16, "F32": torch.float32}[dtype]
    tensors = {name: t.to(torch_dtype) for name, t in tensors.items()}
    if max_shard_size is None:
        safetensors_io.save(os.path.join(folder, "model.safetensors"), tensors, metadata={"format": "pt"}, dtype=dtype)
        return
    shards = shard(tensors, max_shard_size)
    if len(shards) != 2:
        raise ValueError(f"{folder}: {len(shards)} shards, not 2: change MAX_SHARD_SIZE")
    weight_map = {}
    for n, part in enumerate(shards):
        file_name = f"model-{n + 1:05d}-of-{len(shards):05d}.safetensors"
        safetensors_io.save(os.path.join(folder, file_name), part, metadata={"format": "pt"}, dtype=dtype)
        weight_map.update({name: file_name for name in part})
    total = sum(t.numel() * t.element_size() for t in tensors.values())
    write_json(os.path.join(folder, "model.safetensors.index.json"),
               {"metadata": {"total_size": total}, "weight_map": weight_map})


def make_snapshot(name):
    """(folder contents written, tokenizer) for SPECS[name]; the folder is emptied of weight files first."""
    spec = SPECS[name]
    sizes = spec["sizes"]
    tokenizer, tok_ids = spec["tokenizer"](sizes)
    if tokenizer.size > sizes["vocab"]:
        raise ValueError(f"{name}: the tokenizer has {tokenizer.size} ids, the model {sizes['vocab']}")
    config, generation = spec["config"](sizes, tok_ids)
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith(".safetensors") or old == "model.safetensors.index.json":
            os.remove(os.path.join(folder, old))
    write_json(os.path.join(folder, "config.json"), config)
    write_json(os.path.join(folder, "generation_config.json"), generation)
    write_json(os.path.join(folder, "tokenizer.json"), tokenizer.tokenizer, sort_keys=False)
    write_json(os.path.join(folder, "tokenizer_config.json"), tokenizer.config)
    write_json(os.path.join(folder, "special_tokens_map.json"), tokenizer.special_map)
    tensors = random_state_dict(config, spec, eos_ids(config, generation), tokenizer.size)
    write_weights(folder, tensors, spec["dtype"], spec.get("shards"))
    return folder, tokenizer


def tokenizers():
    """{name: Tokenizer} without writing anything (make_hf_llama_goldens.py encodes its prompts with them)."""
    return {name: spec["tokenizer"](spec["sizes"])[0] for name, spec in SPECS.items()}


def main():
    for name in SPECS:
        folder, tokenizer = make_snapshot(name)
        total = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        print(f"{name}: {tokenizer.size} tokenizer ids, {len(tokenizer.bpe.merges)} merges, {total} bytes")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
