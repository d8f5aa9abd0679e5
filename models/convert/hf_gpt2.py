"""A Hugging Face GPT-2 snapshot -> an attnscope decoder-only model file ("architecture":
"decoder_only", models/FORMAT.md). Called through models/convert/convert_hf.py (config.json's
model_type "gpt2"); `transformers` is not needed.

The folder holds config.json, the weights as model.safetensors or pytorch_model.bin, vocab.json,
merges.txt and, when present, generation_config.json, tokenizer_config.json, tokenizer.json and
added_tokens.json. What Hugging Face's modeling_gpt2.py computes, in the engine's terms:

  * pre-norm layers (GPT2Block: ln_1, attention, ln_2, MLP), the final LayerNorm ln_f before the
    output projection, which is wte (lm_head tied); no output bias (output.bias is zeros);
  * learned positions wpe, n_positions of them; no embedding scale;
  * the MLP's activation_function: gelu_new and gelu_pytorch_tanh are the tanh GELU ("gelu_tanh"),
    gelu the erf one, relu; n_inner null means 4 * n_embd;
  * scores q kᵀ / sqrt(head_dim). scale_attn_weights false (no division) and
    scale_attn_by_inverse_layer_idx (a further 1 / (layer + 1)) are folded into q_proj, so the
    engine's softmax sees Hugging Face's scores; reorder_and_upcast_attn changes only the order of
    float32 operations under mixed precision and is read as the plain computation.

Tensor names (N: layer; with or without the "transformer." prefix). pytorch_utils.Conv1D stores its
weight as [in, out] (y = x W + b): every one is transposed into nn.Linear's [out, in], and c_attn's
[d, 3d] holds q, k and v side by side:

    wte.weight [V, d]                       -> embed.token.weight (lm_head.weight: absent, or equal)
    wpe.weight [n_positions, d]             -> embed.position.weight
    h.N.ln_1.*                              -> layers.N.self_attn_norm.*
    h.N.attn.c_attn.{weight [d, 3d], bias}  -> layers.N.self_attn.{q,k,v}_proj.*
    h.N.attn.c_proj.*                       -> layers.N.self_attn.out_proj.*
    h.N.ln_2.*                              -> layers.N.ffn_norm.*
    h.N.mlp.c_fc.*, h.N.mlp.c_proj.*        -> layers.N.ffn.fc1.*, layers.N.ffn.fc2.*
    ln_f.*                                  -> final_norm.*
    h.N.attn.bias, h.N.attn.masked_bias     GPT2Attention's buffers (older files store them): dropped

The tokenizer (GPT2Tokenizer): {"type": "byte_bpe", "merges": the lines of merges.txt after its
"#version" header, in rank order}; the vocabulary is vocab.json's pieces by id, then the added
tokens of tokenizer.json / added_tokens.json beyond it. <|endoftext|> is bos, eos and unk; GPT-2
has no pad token, so pad is that id too. prepend_bos: whether Hugging Face's tokenizer puts the bos
token before a prompt (tokenizer.json's post-processor, else tokenizer_config.json's add_bos_token,
default false: GPT-2's tokenizer adds nothing). Generation defaults: generation_config.json (or config.json
without it) with config.json's task_specific_params["text-generation"] on top, as the
text-generation pipeline applies them; written only when they set something.

Refused, with the file and the field named: another model_type, a post-processor that puts
anything but the bos token before the text (or anything after it), tokenizer files that disagree on
it, add_cross_attention, a position
scheme other than learned absolute positions (rotary_dim, ALiBi, ...), an activation the engine
lacks, untied output embeddings, a vocabulary whose size does not match config.json or the embedding
matrix, vocab.json ids with a gap or a duplicate, a merge whose result is not in vocab.json,
generation settings the engine has no equivalent of, a missing file, a truncated or malformed
safetensors file, a missing, unexpected or misshapen tensor.
"""

import math
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "reference")]

import convert_hf  # noqa: E402
from attnscope_ref import gpt  # noqa: E402

# Reading a snapshot's files as untrusted input, and vocab.json, are the same for every family.
files = convert_hf.load_converter("snapshot_files")
_bert, _marian = convert_hf.load_converter("hf_bert"), convert_hf.load_converter("hf_marian")
ConversionError = files.ConversionError
path_in, read_json, read_weights = files.path_in, files.read_json, files.read_weights
token_string = _bert.token_string
read_vocab = _marian.read_vocab

ENDOFTEXT = "<|endoftext|>"
ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu", "relu": "relu"}
# Fields of position schemes other than GPT-2's learned absolute positions (GPT-J / NeoX rotary,
# BLOOM / MPT ALiBi, ...), refused when set.
OTHER_POSITIONS = ("rotary_dim", "rotary_pct", "rotary_emb_base", "rope_theta", "rope_scaling", "alibi", "use_alibi",
                   "position_embedding_type")
BUFFER = re.compile(r"h\.\d+\.attn\.(bias|masked_bias)")
LAYER_PARTS = {"ln_1": "self_attn_norm", "attn.c_proj": "self_attn.out_proj", "ln_2": "ffn_norm",
               "mlp.c_fc": "ffn.fc1", "mlp.c_proj": "ffn.fc2"}
# Generation settings the engine has no field for, at the values that change nothing.
NEUTRAL_GENERATION = dict(_marian.NEUTRAL_GENERATION, bad_words_ids=None, temperature=1.0, top_p=1.0, typical_p=1.0,
                          epsilon_cutoff=0.0, eta_cutoff=0.0, penalty_alpha=None, guidance_scale=None,
                          low_memory=None)
for _key in ("do_sample", "num_return_sequences", "max_new_tokens"):
    del NEUTRAL_GENERATION[_key]  # read below
GENERATION_SETTINGS = ("do_sample", "num_beams", "num_return_sequences", "max_length", "max_new_tokens",
                       "min_length", "length_penalty", "early_stopping", "no_repeat_ngram_size", "repetition_penalty",
                       "forced_eos_token_id", "renormalize_logits", "top_k")


def linear_weight(conv1d_weight):
    """pytorch_utils.Conv1D's weight [in, out] (y = x W + b) as nn.Linear's [out, in] (y = x Wᵀ + b)."""
    return conv1d_weight.t().contiguous()


# ---------------------------------------------------------------------------------- config

def positive_int(hf, key, path, default=None):
    value = hf.get(key, default)
    if value is None:
        raise ConversionError(f"{path}: field '{key}' is missing")
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConversionError(f"{path}: field '{key}' must be a positive integer, not {value!r}")
    return value


def convert_config(hf, path):
    """config.json -> the attnscope config without special_tokens, and the attention-score factor
    of each layer that q_proj absorbs."""
    if hf.get("model_type") != "gpt2":
        raise ConversionError(f"{path}: field 'model_type' is {hf.get('model_type')!r}, expected 'gpt2'")
    if hf.get("add_cross_attention", False):
        raise ConversionError(f"{path}: field 'add_cross_attention' is true: a decoder-only model has no "
                              "cross-attention")
    for key in OTHER_POSITIONS:
        if hf.get(key) not in (None, False) and not (key == "position_embedding_type" and hf[key] == "absolute"):
            raise ConversionError(f"{path}: field '{key}' is {hf[key]!r}: only GPT-2's learned absolute positions "
                                  "are supported")
    if hf.get("tie_word_embeddings", True) is not True:
        raise ConversionError(f"{path}: field 'tie_word_embeddings' is false: only lm_head tied to wte is supported")
    activation = hf.get("activation_function", "gelu_new")
    if activation not in ACTIVATIONS:
        raise ConversionError(f"{path}: field 'activation_function' is {activation!r}; supported: "
                              f"{', '.join(sorted(ACTIVATIONS))}")
    for key in ("scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"):
        if not isinstance(hf.get(key, False), bool):
            raise ConversionError(f"{path}: field '{key}' must be true or false, not {hf[key]!r}")
    d, heads, layers = (positive_int(hf, k, path) for k in ("n_embd", "n_head", "n_layer"))
    if d % heads:
        raise ConversionError(f"{path}: field 'n_embd' ({d}) is not divisible by 'n_head' ({heads})")
    inner = 4 * d if hf.get("n_inner") is None else positive_int(hf, "n_inner", path)
    eps = hf.get("layer_norm_epsilon", 1e-5)
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not eps > 0:
        raise ConversionError(f"{path}: field 'layer_norm_epsilon' must be a positive number, not {eps!r}")
    # HF divides the scores by sqrt(head_dim) only with scale_attn_weights, and by layer + 1 with
    # scale_attn_by_inverse_layer_idx; the engine always divides by sqrt(head_dim).
    base = 1.0 if hf.get("scale_attn_weights", True) else math.sqrt(d // heads)
    inverse = hf.get("scale_attn_by_inverse_layer_idx", False)
    q_scales = [base / (n + 1 if inverse else 1) for n in range(layers)]
    config = {"architecture": "decoder_only", "d_model": d, "n_heads": heads, "d_ff": inner, "n_layers": layers,
              "activation": ACTIVATIONS[activation], "norm": "pre", "positions": "learned",
              "max_positions": positive_int(hf, "n_positions", path, hf.get("max_position_embeddings")),
              "embedding_scale": 1.0, "tied_output": True, "layer_norm_eps": float(eps)}
    return config, q_scales


# ---------------------------------------------------------------------------------- tokenizer

def added_tokens(folder):
    """{id: piece} of tokenizer.json's added_tokens and added_tokens.json, which must agree."""
    found, where = {}, {}
    tj = read_json(folder, "tokenizer.json", required=False)
    at = read_json(folder, "added_tokens.json", required=False)
    entries = []
    if tj is not None:
        path = os.path.join(folder, "tokenizer.json")
        for entry in tj.get("added_tokens") or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), int) \
                    or not isinstance(entry.get("content"), str):
                raise ConversionError(f"{path}: field 'added_tokens' holds {entry!r}; expected {{id, content}}")
            entries.append((entry["id"], entry["content"], f"{path}: field 'added_tokens'"))
    if at is not None:
        path = os.path.join(folder, "added_tokens.json")
        for piece, i in at.items():
            if not isinstance(i, int) or isinstance(i, bool):
                raise ConversionError(f"{path}: piece {piece!r} has id {i!r}, not an integer")
            entries.append((i, piece, path))
    for i, piece, source in entries:
        if found.get(i, piece) != piece:
            raise ConversionError(f"{source}: id {i} is {piece!r}, but {where[i]} says {found[i]!r}")
        found[i], where[i] = piece, source
    return found, where


def read_pieces(folder):
    """vocab.json's pieces by id, then the added tokens beyond it (contiguous ids)."""
    pieces, _ = read_vocab(folder)
    vocab_path = os.path.join(folder, "vocab.json")
    added, where = added_tokens(folder)
    for i in sorted(added):
        if i < len(pieces):
            if pieces[i] != added[i]:
                raise ConversionError(f"{where[i]}: id {i} is {added[i]!r}, but {vocab_path} has {pieces[i]!r} there")
        elif i == len(pieces):
            pieces.append(added[i])
        else:
            raise ConversionError(f"{where[i]}: id {i} of {added[i]!r} leaves a gap after the {len(pieces)} pieces of "
                                  f"{vocab_path}")
    if len(set(pieces)) != len(pieces):
        raise ConversionError(f"{vocab_path}: a piece appears under two ids (with the added tokens)")
    return pieces


def read_merges(folder, vocab):
    """merges.txt's "left right" lines after the "#version" header, in rank order; each merge's
    result must be a piece of the vocabulary."""
    path = os.path.join(folder, "merges.txt")
    lines = files.read_text(folder, "merges.txt").split("\n")
    merges = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or number == 1 and line.startswith("#version"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ConversionError(f"{path}: line {number} is {line!r}; expected two pieces separated by a space")
        if parts[0] + parts[1] not in vocab:
            raise ConversionError(f"{path}: line {number} merges {parts[0]!r} and {parts[1]!r} into "
                                  f"{parts[0] + parts[1]!r}, which is not in vocab.json")
        merges.append(f"{parts[0]} {parts[1]}")
    if not merges:
        raise ConversionError(f"{path}: no merges")
    return merges


def special_tokens(folder, hf, config_path, vocab):
    """bos, eos and unk from tokenizer_config.json (default <|endoftext|> each), checked against
    config.json's bos_token_id / eos_token_id; pad: GPT-2 has none, eos stands in."""
    tc_path = os.path.join(folder, "tokenizer_config.json")
    tc = read_json(folder, "tokenizer_config.json", required=False) or {}
    pieces = {key: token_string(tc.get(key)) or ENDOFTEXT for key in ("bos_token", "eos_token", "unk_token")}
    if tc.get("pad_token") is not None:
        pieces["pad_token"] = token_string(tc["pad_token"])
    for key, piece in pieces.items():
        if piece not in vocab:
            raise ConversionError(f"{tc_path}: field '{key}' is {piece!r}, which is not in vocab.json")
    ids = {key: vocab[piece] for key, piece in pieces.items()}
    for key, token in (("bos_token_id", "bos_token"), ("eos_token_id", "eos_token")):
        if hf.get(key) is not None and hf[key] != ids[token]:
            raise ConversionError(f"{config_path}: field '{key}' is {hf[key]!r}, but the {token} "
                                  f"{pieces[token]!r} has id {ids[token]}")
    return {"pad": ids.get("pad_token", ids["eos_token"]), "unk": ids["unk_token"], "bos": ids["bos_token"],
            "eos": ids["eos_token"]}


def template_adds_bos(processor, where, bos):
    """Whether tokenizer.json's post-processor (`processor`, at `where`) puts the bos token (piece,
    id) before a single text, as the tokenizers library runs it: null and ByteLevel add nothing; a
    Sequence runs its processors in turn; TemplateProcessing's `single` template is the text
    ({"Sequence": {"id": "A"}}) or the bos token then the text ({"SpecialToken": {"id": piece}},
    its ids in `special_tokens`), as transformers' GPT2Converter writes it for add_bos_token. Any
    other template (a token after the text, another special token) and any other processor is
    refused: the engine puts nothing else around a prompt."""
    if processor is None:
        return False
    kind = processor.get("type") if isinstance(processor, dict) else None
    if kind == "ByteLevel":
        return False
    if kind == "Sequence":
        steps = processor.get("processors")
        if not isinstance(steps, list):
            raise ConversionError(f"{where}.processors must be a list")
        added = [template_adds_bos(step, f"{where}.processors[{i}]", bos) for i, step in enumerate(steps)]
        if sum(added) > 1:
            raise ConversionError(f"{where}: more than one processor puts the bos token first")
        return any(added)
    if kind != "TemplateProcessing":
        raise ConversionError(f"{where}.type is {kind!r}: a GPT-2 prompt takes ByteLevel, TemplateProcessing or a "
                              "Sequence of them")
    pieces = []
    for piece in processor.get("single") or []:
        if isinstance(piece, dict) and len(piece) == 1:
            (part, value), = piece.items()
            if part in ("Sequence", "SpecialToken") and isinstance(value, dict):
                pieces.append((part, value.get("id")))
                continue
        raise ConversionError(f"{where}.single holds {piece!r}; expected {{\"Sequence\"|\"SpecialToken\": {{id}}}}")
    if pieces == [("Sequence", "A")]:
        return False
    if len(pieces) == 2 and pieces[0][0] == "SpecialToken" and pieces[1] == ("Sequence", "A"):
        name = pieces[0][1]
        ids = ((processor.get("special_tokens") or {}).get(name) or {}).get("ids", [bos[1]] if name == bos[0] else None)
        if ids == [bos[1]]:
            return True
    raise ConversionError(f"{where}.single is {[f'{part}:{name}' for part, name in pieces]}: the engine reads a "
                          f"prompt as it is or after the bos token {bos[0]!r} (id {bos[1]}), nothing else")


def prepend_bos(folder, bos):
    """Whether Hugging Face's tokenizer of the snapshot puts the bos token (piece, id) before a text,
    the model file's prepend_bos: tokenizer.json's post-processor (the fast tokenizer AutoTokenizer
    loads), else tokenizer_config.json's add_bos_token (GPT2Tokenizer's, default false, which
    GPT2Converter turns into that same template); where both say, they must agree."""
    tc_path, tj_path = os.path.join(folder, "tokenizer_config.json"), os.path.join(folder, "tokenizer.json")
    tc = read_json(folder, "tokenizer_config.json", required=False) or {}
    tj = read_json(folder, "tokenizer.json", required=False)
    stated = tc.get("add_bos_token")
    if stated is not None and not isinstance(stated, bool):
        raise ConversionError(f"{tc_path}: field 'add_bos_token' must be true or false, not {stated!r}")
    if tj is None:
        return bool(stated)
    added = template_adds_bos(tj.get("post_processor"), f"{tj_path}: field 'post_processor'", bos)
    if stated is not None and stated != added:
        raise ConversionError(f"{tc_path}: field 'add_bos_token' is {stated!r} but {tj_path}: field 'post_processor' "
                              f"{'puts' if added else 'does not put'} the bos token first: the two tokenizer files "
                              "disagree")
    return added


# ---------------------------------------------------------------------------------- generation

def generation_settings(folder, hf, config_path):
    """{field: (value, where)}: generation_config.json (config.json without it), then
    task_specific_params["text-generation"] as the text-generation pipeline applies it."""
    gen = read_json(folder, "generation_config.json", required=False)
    gen_path = os.path.join(folder, "generation_config.json")
    if gen is None:
        gen, gen_path = hf, config_path
    settings = {k: (v, f"{gen_path}: field '{k}'") for k, v in gen.items()}
    task = (hf.get("task_specific_params") or {}).get("text-generation") or {}
    if not isinstance(task, dict):
        raise ConversionError(f"{config_path}: field 'task_specific_params.text-generation' is not an object")
    settings.update({k: (v, f"{config_path}: field 'task_specific_params.text-generation.{k}'")
                     for k, v in task.items()})
    return settings


def generation_defaults(folder, hf, config_path, eos):
    """The `generation` metadata, or None when the snapshot sets no generation setting."""
    s = generation_settings(folder, hf, config_path)

    def value(key, default=None):
        return s[key][0] if key in s and s[key][0] is not None else default

    def refuse(key, why):
        raise ConversionError(f"{s[key][1]} = {s[key][0]!r} {why}")

    for key, neutral in NEUTRAL_GENERATION.items():
        if key in s and s[key][0] != neutral:
            refuse(key, f"is not supported (the engine reproduces {key} = {neutral!r})")
    if not any(key in s and s[key][0] is not None for key in GENERATION_SETTINGS):
        return None
    sample, beams = value("do_sample", False), value("num_beams", 1)
    if not isinstance(sample, bool):
        refuse("do_sample", "must be true or false")
    if not isinstance(beams, int) or isinstance(beams, bool) or not 1 <= beams <= 64:
        refuse("num_beams", "is outside [1, 64]")
    if sample and beams > 1:
        refuse("num_beams", "with do_sample true (beam sampling) is not supported")
    if sample and value("top_k") not in (None, 0):
        refuse("top_k", "is not supported: the engine's `sample` draws from the whole distribution")
    generation = {"strategy": "sample" if sample else "beam" if beams > 1 else "greedy"}
    if beams > 1:
        nbest = value("num_return_sequences", 1)
        if not isinstance(nbest, int) or not 1 <= nbest <= beams:
            refuse("num_return_sequences", f"is outside [1, num_beams = {beams}]")
        length_penalty = value("length_penalty", 1.0)
        if not isinstance(length_penalty, (int, float)) or isinstance(length_penalty, bool) \
                or not 0.0 <= length_penalty <= 10.0:
            refuse("length_penalty", "is outside [0, 10]")
        early = value("early_stopping", False)
        if early not in (False, True, "never"):
            refuse("early_stopping", "is not false, true or \"never\"")
        generation.update(beam_size=beams, nbest=nbest, length_penalty="power", alpha=float(length_penalty),
                          early_stopping={False: "heuristic", True: "early", "never": "never"}[early])
    elif value("num_return_sequences", 1) != 1:
        refuse("num_return_sequences", "is more than one without beam search")
    if value("max_new_tokens") is not None:
        if not isinstance(value("max_new_tokens"), int) or value("max_new_tokens") < 1:
            refuse("max_new_tokens", "must be an integer >= 1")
        generation["max_length"] = value("max_new_tokens")
    elif value("max_length") is not None:
        # HF's max_length counts the prompt: <|endoftext|> alone (what generate() starts from without a
        # prompt, and the engine from an empty one) leaves max_length - 1 new tokens. The engine's
        # max_length counts new tokens only, so a longer prompt is not cut shorter as in HF.
        if not isinstance(value("max_length"), int) or value("max_length") < 2:
            refuse("max_length", "must be an integer >= 2")
        generation["max_length"] = value("max_length") - 1
    if value("forced_eos_token_id") is not None:
        if value("forced_eos_token_id") != eos:
            refuse("forced_eos_token_id", f"is not supported; only <|endoftext|> ({eos}) is")
        generation["forced_eos"] = True
    if value("renormalize_logits") is not None:
        generation["renormalize"] = bool(value("renormalize_logits"))
    for key, neutral in (("min_length", 0), ("no_repeat_ngram_size", 0), ("repetition_penalty", 1.0)):
        if value(key, neutral) != neutral:
            generation[key] = value(key)
    return generation


# ---------------------------------------------------------------------------------- tensors

def map_tensors(weights, path, config, q_scales, vocab_size):
    """HF state dict -> attnscope tensors (nn.Linear layout)."""
    d, inner = config["d_model"], config["d_ff"]
    named = {}
    for name, t in weights.items():
        short = name.removeprefix("transformer.")
        if short in named:
            raise ConversionError(f"{path}: tensor '{short}' is stored twice (with and without 'transformer.')")
        named[short] = (name, t)

    def take(short, shape, why=""):
        if short not in named:
            raise ConversionError(f"{path}: tensor '{short}' (or 'transformer.{short}') is missing")
        name, t = named.pop(short)
        if list(t.shape) != shape:
            raise ConversionError(f"{path}: tensor '{name}' has shape {list(t.shape)}, expected {shape}{why}")
        if not t.is_floating_point():
            raise ConversionError(f"{path}: tensor '{name}' is {t.dtype}, not floating point")
        return t.float()

    for short in [n for n in named if BUFFER.fullmatch(n)]:
        del named[short]
    wte = take("wte.weight", [vocab_size, d], f" (vocab.json and the added tokens: {vocab_size} pieces; n_embd {d})")
    if "lm_head.weight" in named:
        name, head = named.pop("lm_head.weight")
        if head.shape != wte.shape or not torch.equal(head.float(), wte):
            raise ConversionError(f"{path}: tensor '{name}' differs from 'wte.weight'; they must be tied (equal)")
    out = {"embed.token.weight": wte, "embed.position.weight": take("wpe.weight", [config["max_positions"], d]),
           "output.bias": torch.zeros(vocab_size)}
    shapes = {"ln_1": ([d], [d]), "attn.c_proj": ([d, d], [d]), "ln_2": ([d], [d]),
              "mlp.c_fc": ([d, inner], [inner]), "mlp.c_proj": ([inner, d], [d])}
    for n in range(config["n_layers"]):
        h, layer = f"h.{n}", f"layers.{n}"
        weight, bias = take(f"{h}.attn.c_attn.weight", [d, 3 * d]), take(f"{h}.attn.c_attn.bias", [3 * d])
        qkv = linear_weight(weight).split(d, dim=0)
        for part, w, b in zip(("q_proj", "k_proj", "v_proj"), qkv, bias.split(d)):
            scale = q_scales[n] if part == "q_proj" else 1.0
            out[f"{layer}.self_attn.{part}.weight"], out[f"{layer}.self_attn.{part}.bias"] = w * scale, b * scale
        for part, target in LAYER_PARTS.items():
            weight_shape, bias_shape = shapes[part]
            weight = take(f"{h}.{part}.weight", weight_shape)
            out[f"{layer}.{target}.weight"] = weight if part.startswith("ln_") else linear_weight(weight)
            out[f"{layer}.{target}.bias"] = take(f"{h}.{part}.bias", bias_shape)
    out["final_norm.weight"], out["final_norm.bias"] = take("ln_f.weight", [d]), take("ln_f.bias", [d])
    if named:
        raise ConversionError(f"{path}: unexpected tensors {sorted(v[0] for v in named.values())[:5]} (not part of a "
                              "GPT2LMHeadModel, or more layers than config.json says)")
    return out


# ---------------------------------------------------------------------------------- convert

def convert(folder, out, dtype="F32", name=None):
    """Writes `out` from the snapshot `folder`; returns the attnscope config. Raises ConversionError."""
    config_path = os.path.join(folder, "config.json")
    hf = read_json(folder, "config.json")
    weights_path, weights = read_weights(folder)
    files.bound_config(hf, config_path, weights, weights_path,
                       sizes=("n_embd", "n_head", "n_inner", "n_positions", "max_position_embeddings"),
                       layers=[("n_layer", r"^(?:transformer\.)?h\.(\d+)\.")])
    config, q_scales = convert_config(hf, config_path)
    pieces = read_pieces(folder)
    vocab = {p: i for i, p in enumerate(pieces)}
    if hf.get("vocab_size") is not None and hf["vocab_size"] != len(pieces):
        raise ConversionError(f"{config_path}: field 'vocab_size' is {hf['vocab_size']!r}, but vocab.json (with "
                              f"the added tokens) has {len(pieces)} pieces")
    merges = read_merges(folder, vocab)
    config["special_tokens"] = special_tokens(folder, hf, config_path, vocab)
    bos = config["special_tokens"]["bos"]
    config["prepend_bos"] = prepend_bos(folder, (pieces[bos], bos))
    generation = generation_defaults(folder, hf, config_path, config["special_tokens"]["eos"])
    tensors = map_tensors(weights, weights_path, config, q_scales, len(pieces))
    config = gpt.complete_config(config)
    model = gpt.DecoderOnly(config, len(pieces))
    model.load_state_dict(tensors, strict=True)
    snapshot = os.path.basename(os.path.abspath(folder))
    gpt.export(model, config, {"type": "byte_bpe", "merges": merges}, pieces, out, dtype=dtype, name=name or snapshot,
               description=f"converted from the Hugging Face snapshot {snapshot} by models/convert/convert_hf.py",
               generation=generation)
    return config
