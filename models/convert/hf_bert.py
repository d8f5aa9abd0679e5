"""A Hugging Face BERT snapshot -> an attnscope model file ("architecture": "bert", models/FORMAT.md).
Called through models/convert/convert_hf.py (which reads config.json's model_type); `transformers`
is not needed.

The folder holds config.json, vocab.txt, the weights as model.safetensors (F32, F16 or BF16) or
pytorch_model.bin, and optionally tokenizer_config.json and tokenizer.json. The layouts real
snapshots use are all read:

  * BertForMaskedLM (bert.* + cls.predictions.*) and BertForPreTraining (also bert.pooler.* and the
    next-sentence head cls.seq_relationship.*, which is dropped), with or without the "bert."
    prefix; a file without the masked-LM head (BertModel) is refused;
  * old TensorFlow-converted checkpoints, whose LayerNorm parameters are gamma / beta;
  * cls.predictions.decoder.weight tied to the word embeddings, present or (as save_pretrained
    drops tied weights) absent; the output bias as cls.predictions.bias and/or
    cls.predictions.decoder.bias (one Parameter in Hugging Face's model);
  * the bert.embeddings.position_ids buffer of older files (dropped).

Tensor names, after the prefix and gamma/beta are normalised (N: layer):

    embeddings.word_embeddings.weight            -> embed.token.weight (also the MLM decoder: tied)
    embeddings.position_embeddings.weight        -> embed.position.weight
    embeddings.token_type_embeddings.weight      -> embed.segment.weight
    embeddings.LayerNorm.*                       -> embed.norm.*
    encoder.layer.N.attention.self.{query,key,value}.*  -> layers.N.self_attn.{q,k,v}_proj.*
    encoder.layer.N.attention.output.dense.*     -> layers.N.self_attn.out_proj.*
    encoder.layer.N.attention.output.LayerNorm.* -> layers.N.self_attn_norm.*
    encoder.layer.N.intermediate.dense.*         -> layers.N.ffn.fc1.*
    encoder.layer.N.output.dense.*               -> layers.N.ffn.fc2.*
    encoder.layer.N.output.LayerNorm.*           -> layers.N.ffn_norm.*
    pooler.dense.*                               -> pooler.*   (when present)
    cls.predictions.transform.dense.*            -> mlm.transform.*
    cls.predictions.transform.LayerNorm.*        -> mlm.norm.*
    cls.predictions.bias                         -> mlm.bias

The tokenizer: BertTokenizer's settings from tokenizer_config.json (do_lower_case, strip_accents,
tokenize_chinese_chars, never_split, unk_token) and the fast tokenizer's from tokenizer.json
(normalizer BertNormalizer: lowercase, strip_accents, handle_chinese_chars, clean_text;
pre_tokenizer BertPreTokenizer; model WordPiece: unk_token, max_input_chars_per_word); where both
files state a setting they must agree. Defaults are BertTokenizer's: lower-case, accents stripped
when lower-casing (strip_accents None), Chinese characters spaced.

Refused, with the file and the field named: is_decoder / add_cross_attention, a
position_embedding_type other than "absolute", a hidden_act other than "gelu" (the erf GELU),
untied output embeddings, a vocabulary whose size differs from the embedding matrix, special tokens
other than BERT's, tokenizer settings the engine has no equivalent of, a missing file, a truncated
or malformed safetensors file, an unexpected or missing tensor, a tensor of the wrong shape.
"""

import io
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "reference")]

from attnscope_ref import bert  # noqa: E402
from attnscope_ref.wordpiece import DEFAULT_SPEC  # noqa: E402

sys.path.insert(0, HERE)
import convert_hf  # noqa: E402

# Reading a snapshot's files as untrusted input, for every family.
files = convert_hf.load_converter("snapshot_files")
ConversionError = files.ConversionError
path_in, read_json, read_text, read_safetensors, read_weights = \
    files.path_in, files.read_json, files.read_text, files.read_safetensors, files.read_weights


LAYER = {
    "attention.self.query": "self_attn.q_proj", "attention.self.key": "self_attn.k_proj",
    "attention.self.value": "self_attn.v_proj", "attention.output.dense": "self_attn.out_proj",
    "attention.output.LayerNorm": "self_attn_norm", "intermediate.dense": "ffn.fc1", "output.dense": "ffn.fc2",
    "output.LayerNorm": "ffn_norm",
}
TOP = {
    "embeddings.word_embeddings": "embed.token", "embeddings.position_embeddings": "embed.position",
    "embeddings.token_type_embeddings": "embed.segment", "embeddings.LayerNorm": "embed.norm",
    "pooler.dense": "pooler", "cls.predictions.transform.dense": "mlm.transform",
    "cls.predictions.transform.LayerNorm": "mlm.norm",
}
DROPPED = re.compile(r"^(embeddings\.position_ids|cls\.seq_relationship\.(weight|bias))$")
DECODER_WEIGHT, DECODER_BIAS, MLM_BIAS = "cls.predictions.decoder.weight", "cls.predictions.decoder.bias", \
    "cls.predictions.bias"
# attnscope's BERT finds its specials by these pieces (models/FORMAT.md, special_tokens).
SPECIAL_TOKEN_FIELDS = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                        "mask_token": "[MASK]"}

# ---------------------------------------------------------------------------------- files

def read_vocab(folder):
    """vocab.txt as BertTokenizer's load_vocab reads it: one piece a line, id = line number."""
    path = os.path.join(folder, "vocab.txt")
    # Universal newlines and rstrip("\n"), as load_vocab's open() and readlines() read it.
    pieces = [line.rstrip("\n") for line in io.StringIO(read_text(folder, "vocab.txt"), newline=None)]
    seen = {}
    for i, p in enumerate(pieces):
        if p in seen:
            raise ConversionError(f"{path}: piece {p!r} on lines {seen[p] + 1} and {i + 1} (a piece must be unique)")
        seen[p] = i
    return pieces


# ---------------------------------------------------------------------------------- config

def convert_config(hf, path, vocab_size):
    """attnscope's BERT config of config.json's fields; refuses what the engine does not compute."""
    def field(name, default=None, kind=int):
        if name not in hf:
            if default is None:
                raise ConversionError(f"{path}: field '{name}' is missing")
            return default
        value = hf[name]
        if kind is int and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
            raise ConversionError(f"{path}: field '{name}' must be a positive integer, not {value!r}")
        if kind is float and (not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0):
            raise ConversionError(f"{path}: field '{name}' must be a positive number, not {value!r}")
        return value

    if hf.get("model_type", "bert") != "bert":
        raise ConversionError(f"{path}: field 'model_type' is {hf['model_type']!r}, not 'bert'")
    for flag in ("is_decoder", "add_cross_attention"):
        if hf.get(flag, False):
            raise ConversionError(f"{path}: field '{flag}' is true: attnscope's BERT is an encoder without a "
                                  "causal mask or cross-attention")
    if hf.get("position_embedding_type", "absolute") != "absolute":
        raise ConversionError(f"{path}: field 'position_embedding_type' is {hf['position_embedding_type']!r}: only "
                              "'absolute' (learned) positions are supported")
    if hf.get("hidden_act", "gelu") != "gelu":
        raise ConversionError(f"{path}: field 'hidden_act' is {hf['hidden_act']!r}: only 'gelu' (the erf GELU) is "
                              "supported")
    if hf.get("tie_word_embeddings", True) is False:
        raise ConversionError(f"{path}: field 'tie_word_embeddings' is false: attnscope's BERT ties the MLM decoder "
                              "to the word embeddings")
    if "vocab_size" in hf and hf["vocab_size"] != vocab_size:
        raise ConversionError(f"{path}: field 'vocab_size' is {hf['vocab_size']}, but vocab.txt has {vocab_size} "
                              "pieces")
    d, heads = field("hidden_size"), field("num_attention_heads")
    if d % heads:
        raise ConversionError(f"{path}: field 'hidden_size' ({d}) is not divisible by 'num_attention_heads' ({heads})")
    return {
        "d_model": d, "n_heads": heads, "d_ff": field("intermediate_size"), "n_layers": field("num_hidden_layers"),
        "n_segments": field("type_vocab_size", 2), "max_positions": field("max_position_embeddings"),
        "layer_norm_eps": float(field("layer_norm_eps", 1e-12, float)),
    }


# ---------------------------------------------------------------------------------- tokenizer

def token_string(value):
    """A special token as tokenizer_config.json writes it: a string or an AddedToken object."""
    return value.get("content") if isinstance(value, dict) else value


def tokenizer_spec(folder, vocab):
    """attnscope's "wordpiece" tokenizer spec of the snapshot's tokenizer files."""
    tc_path, tj_path = os.path.join(folder, "tokenizer_config.json"), os.path.join(folder, "tokenizer.json")
    tc = read_json(folder, "tokenizer_config.json", required=False) or {}
    tj = read_json(folder, "tokenizer.json", required=False)

    # setting -> (value, file/field that stated it); tokenizer_config.json first, tokenizer.json must agree
    stated = {}

    def state(setting, value, where):
        if setting in stated and stated[setting][0] != value:
            raise ConversionError(f"{where} is {value!r} but {stated[setting][1]} is {stated[setting][0]!r}: the two "
                                  "tokenizer files disagree")
        stated.setdefault(setting, (value, where))

    for field, setting in (("do_lower_case", "lowercase"), ("strip_accents", "strip_accents"),
                           ("tokenize_chinese_chars", "tokenize_chinese_chars")):
        if field in tc:
            if tc[field] is not None and not isinstance(tc[field], bool):
                raise ConversionError(f"{tc_path}: field '{field}' must be true, false or null")
            # BasicTokenizer tests do_lower_case and tokenize_chinese_chars for truth: null is false.
            value = tc[field] if setting == "strip_accents" else bool(tc[field])
            state(setting, value, f"{tc_path}: field '{field}'")
    if tc.get("do_basic_tokenize", True) is not True:
        raise ConversionError(f"{tc_path}: field 'do_basic_tokenize' is false: attnscope's WordPiece always runs "
                              "BERT's basic tokenizer")
    for field, piece in SPECIAL_TOKEN_FIELDS.items():
        if field in tc and token_string(tc[field]) != piece:
            raise ConversionError(f"{tc_path}: field '{field}' is {token_string(tc[field])!r}: attnscope's BERT reads "
                                  f"{piece}")
    never_split = tc.get("never_split") or []
    if not isinstance(never_split, list) or not all(isinstance(w, str) and w for w in never_split):
        raise ConversionError(f"{tc_path}: field 'never_split' must be a list of non-empty strings")

    max_chars = 100
    if tj is not None:
        norm = tj.get("normalizer") or {}
        if norm.get("type") != "BertNormalizer":
            raise ConversionError(f"{tj_path}: field 'normalizer.type' is {norm.get('type')!r}, not 'BertNormalizer'")
        if norm.get("clean_text", True) is not True:
            raise ConversionError(f"{tj_path}: field 'normalizer.clean_text' is false: attnscope's WordPiece always "
                                  "cleans the text")
        for field, setting in (("lowercase", "lowercase"), ("strip_accents", "strip_accents"),
                               ("handle_chinese_chars", "tokenize_chinese_chars")):
            if field in norm:
                if norm[field] is not None and not isinstance(norm[field], bool):
                    raise ConversionError(f"{tj_path}: field 'normalizer.{field}' must be true, false or null")
                value = norm[field] if setting == "strip_accents" else bool(norm[field])
                state(setting, value, f"{tj_path}: field 'normalizer.{field}'")
        pre = tj.get("pre_tokenizer") or {}
        if pre.get("type") != "BertPreTokenizer":
            raise ConversionError(f"{tj_path}: field 'pre_tokenizer.type' is {pre.get('type')!r}, not "
                                  "'BertPreTokenizer'")
        model = tj.get("model") or {}
        if model.get("type") != "WordPiece":
            raise ConversionError(f"{tj_path}: field 'model.type' is {model.get('type')!r}, not 'WordPiece'")
        if model.get("continuing_subword_prefix", "##") != "##":
            raise ConversionError(f"{tj_path}: field 'model.continuing_subword_prefix' is "
                                  f"{model['continuing_subword_prefix']!r}, not '##'")
        if model.get("unk_token", "[UNK]") != "[UNK]":
            raise ConversionError(f"{tj_path}: field 'model.unk_token' is {model['unk_token']!r}: attnscope's BERT "
                                  "reads [UNK]")
        max_chars = model.get("max_input_chars_per_word", 100)
        if not isinstance(max_chars, int) or isinstance(max_chars, bool) or not 1 <= max_chars <= 100000:
            raise ConversionError(f"{tj_path}: field 'model.max_input_chars_per_word' must be an integer in "
                                  "[1, 100000]")
        if "vocab" in model and model["vocab"] != {p: i for i, p in enumerate(vocab)}:
            raise ConversionError(f"{tj_path}: field 'model.vocab' differs from vocab.txt")

    lowercase = stated.get("lowercase", (True,))[0]
    strip_accents = stated.get("strip_accents", (None,))[0]
    spec = dict(DEFAULT_SPEC, lowercase=lowercase, max_chars_per_word=max_chars,
                strip_accents=lowercase if strip_accents is None else strip_accents,
                tokenize_chinese_chars=stated.get("tokenize_chinese_chars", (True,))[0])
    if never_split:
        spec["never_split_words"] = list(never_split)
    return spec


# ---------------------------------------------------------------------------------- tensors

def normalised_name(name):
    """Hugging Face's name without the "bert." prefix and with gamma/beta read as weight/bias (the
    key fix transformers applies to old checkpoints on load)."""
    if name.startswith("bert."):
        name = name[len("bert."):]
    if "LayerNorm" in name:
        name = re.sub(r"\.gamma$", ".weight", re.sub(r"\.beta$", ".bias", name))
    return name


def attnscope_name(name):
    """Our tensor name for a normalised Hugging Face one; None for one we drop or check apart."""
    if DROPPED.match(name) or name in (DECODER_WEIGHT, DECODER_BIAS, MLM_BIAS):
        return None
    m = re.match(r"^encoder\.layer\.(\d+)\.(.+)\.(weight|bias)$", name)
    if m and m.group(2) in LAYER:
        return f"layers.{m.group(1)}.{LAYER[m.group(2)]}.{m.group(3)}"
    m = re.match(r"^(.+)\.(weight|bias)$", name)
    if m and m.group(1) in TOP:
        return f"{TOP[m.group(1)]}.{m.group(2)}"
    raise KeyError(name)


def map_tensors(weights, path, keep_pooler=True):
    """-> ({attnscope name: float32 tensor}, {attnscope name: the file's name})."""
    by_name = {}
    for original, tensor in weights.items():
        name = normalised_name(original)
        if name in by_name:
            raise ConversionError(f"{path}: tensors '{by_name[name][0]}' and '{original}' are the same parameter")
        by_name[name] = (original, tensor)
    if "cls.predictions.transform.dense.weight" not in by_name:
        raise ConversionError(f"{path}: no masked-LM head (cls.predictions.transform.*): this is a BertModel or "
                              "another head's checkpoint; attnscope's BERT needs BertForMaskedLM or BertForPreTraining")
    tensors, origin = {}, {}
    for name, (original, tensor) in by_name.items():
        try:
            ours = attnscope_name(name)
        except KeyError:
            raise ConversionError(f"{path}: unexpected tensor '{original}' in a BERT checkpoint") from None
        if ours is None or (ours.startswith("pooler.") and not keep_pooler):
            continue
        if not tensor.is_floating_point():
            raise ConversionError(f"{path}: tensor '{original}' is {tensor.dtype}, not floating point")
        tensors[ours], origin[ours] = tensor.to(torch.float32), original

    biases = [n for n in (MLM_BIAS, DECODER_BIAS) if n in by_name]
    if not biases:
        raise ConversionError(f"{path}: tensor '{MLM_BIAS}' (the MLM output bias) is missing")
    tensors["mlm.bias"], origin["mlm.bias"] = by_name[biases[0]][1].to(torch.float32), by_name[biases[0]][0]
    if len(biases) == 2 and not torch.equal(by_name[MLM_BIAS][1], by_name[DECODER_BIAS][1]):
        raise ConversionError(f"{path}: tensor '{by_name[DECODER_BIAS][0]}' differs from '{by_name[MLM_BIAS][0]}' "
                              "(one Parameter in Hugging Face's BertLMPredictionHead)")
    if DECODER_WEIGHT in by_name and "embed.token.weight" in tensors:
        decoder = by_name[DECODER_WEIGHT][1].to(torch.float32)
        if decoder.shape != tensors["embed.token.weight"].shape or not torch.equal(decoder, tensors["embed.token.weight"]):
            raise ConversionError(f"{path}: tensor '{by_name[DECODER_WEIGHT][0]}' differs from the word embeddings: "
                                  "attnscope's BERT ties them")
    return tensors, origin


def check_shapes(tensors, origin, expected, path):
    missing = sorted(set(expected) - set(tensors))
    if missing:
        raise ConversionError(f"{path}: missing tensors (attnscope names) {missing}")
    for name, t in tensors.items():
        if name not in expected:
            raise ConversionError(f"{path}: unexpected tensor '{origin[name]}'")
        if tuple(t.shape) != tuple(expected[name].shape):
            raise ConversionError(f"{path}: tensor '{origin[name]}' has shape {list(t.shape)}, the config says "
                                  f"{list(expected[name].shape)}")


# ---------------------------------------------------------------------------------- entry

def convert(folder, out, dtype="F32", name=None, keep_pooler=True):
    """Writes `out` from the snapshot `folder`; returns the attnscope config. Raises ConversionError."""
    config_path = os.path.join(folder, "config.json")
    hf_config = read_json(folder, "config.json")
    vocab = read_vocab(folder)
    vocab_path = os.path.join(folder, "vocab.txt")
    missing = [p for p in bert.SPECIALS if p not in vocab]
    if missing:
        raise ConversionError(f"{vocab_path}: the special pieces {missing} are missing")
    weights_path, weights = read_weights(folder)
    files.bound_config(hf_config, config_path, weights, weights_path,
                       sizes=("hidden_size", "intermediate_size", "max_position_embeddings", "type_vocab_size",
                              "num_attention_heads"),
                       layers=[("num_hidden_layers", r"^(?:bert\.)?encoder\.layer\.(\d+)\.")])
    config = convert_config(hf_config, config_path, len(vocab))
    spec = tokenizer_spec(folder, vocab)
    tensors, origin = map_tensors(weights, weights_path, keep_pooler)
    embeddings = tensors.get("embed.token.weight")
    if embeddings is not None and embeddings.shape[0] != len(vocab):
        raise ConversionError(f"{vocab_path}: {len(vocab)} pieces, but '{origin['embed.token.weight']}' in "
                              f"{weights_path} has {embeddings.shape[0]} rows")
    config["pooler"] = "pooler.weight" in tensors
    config = bert.complete_config(config, vocab)
    model = bert.Bert(config, len(vocab))
    check_shapes(tensors, origin, model.state_dict(), weights_path)
    model.load_state_dict(tensors, strict=True)
    snapshot = os.path.basename(os.path.abspath(folder))
    bert.export(model, config, vocab, out, tokenizer_spec=spec, dtype=dtype, name=name or snapshot,
                description=f"converted from the Hugging Face snapshot {snapshot} by models/convert/convert_hf.py")
    return config
