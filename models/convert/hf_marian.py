"""A Hugging Face Marian (opus-mt) snapshot -> an attnscope model file (models/FORMAT.md). Called
through models/convert/convert_hf.py (config.json's model_type "marian"); `transformers` is not
needed.

The folder holds config.json, the weights as model.safetensors or pytorch_model.bin, source.spm,
target.spm, vocab.json, tokenizer_config.json and, when present, generation_config.json. What
Hugging Face's modeling_marian.py computes, in the engine's terms:

  * post-norm encoder and decoder layers, the activation of `activation_function` (swish/silu,
    gelu, relu), token embeddings times sqrt(d_model) when `scale_embedding`;
  * static sinusoidal positions from position 0, sin in the first half of the columns and cos in
    the second (MarianSinusoidalPositionalEmbedding): "positions": "sinusoidal_halves". The
    embed_positions tables in the file are checked against that formula;
  * one embedding matrix shared by the encoder, the decoder and lm_head (model.shared.weight, and
    whichever tied copies the file holds: they must be equal), final_logits_bias as the output
    bias;
  * the decoder starts with the pad id (decoder_start_token_id), the pad is never generated
    (bad_words_ids [[pad]] -> config suppress_tokens), `</s>` is appended to the source.

Tensor names (N: layer):

    model.shared.weight                                  -> src_embed.weight (tied: tgt, output)
    model.{encoder,decoder}.layers.N.self_attn.{q,k,v,out}_proj.* -> {encoder,decoder}.layers.N.self_attn.*
    model.{encoder,decoder}.layers.N.self_attn_layer_norm.*       -> ....self_attn_norm.*
    model.decoder.layers.N.encoder_attn.*                -> decoder.layers.N.cross_attn.*
    model.decoder.layers.N.encoder_attn_layer_norm.*     -> decoder.layers.N.cross_attn_norm.*
    model.{encoder,decoder}.layers.N.fc1.*, fc2.*        -> ....ffn.fc1.*, ffn.fc2.*
    model.{encoder,decoder}.layers.N.final_layer_norm.*  -> ....ffn_norm.*
    final_logits_bias [1, V]                             -> output.bias [V]

The tokenizers (MarianTokenizer): source.spm for the source and target.spm for the target side,
both mapped to ids through vocab.json ("sentencepiece" tokenizers, the .model bytes in base64),
with `>>xx<<` language codes split off first as remove_language_code does (on both sides, as
_tokenize does). generation_config.json (or, without it, config.json's generation fields) becomes
the `generation` metadata: num_beams, max_length - 1 (the engine counts generated tokens, HF counts
the decoder start too), length_penalty as "power", early_stopping, forced_eos_token_id and
renormalize_logits.

Refused, with the file and the field named: another model_type, separate source and target
vocabularies (share_encoder_decoder_embeddings false), normalize_before, normalize_embedding,
add_final_layer_norm, an activation the engine lacks, encoder and decoder of different widths,
heads or FFN sizes, a vocabulary whose size does not match the embedding matrix, positions that are
not the sinusoid halves, tied tensors that differ, bad_words_ids of more than one token, sampling
or other generation settings the engine has no equivalent of, a missing file, a truncated or
malformed safetensors file, a missing or unexpected tensor, a tensor of the wrong shape.
"""

import base64
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))

from attnscope_ref import safetensors_io  # noqa: E402

sys.path.insert(0, HERE)
import convert_hf  # noqa: E402

# Reading a snapshot's files as untrusted input, for every family.
files = convert_hf.load_converter("snapshot_files")
ConversionError = files.ConversionError
path_in, read_json, read_weights = files.path_in, files.read_json, files.read_weights

ACTIVATIONS = {"swish": "swish", "silu": "swish", "gelu": "gelu", "relu": "relu"}
# The copies of the shared embedding a MarianMTModel state dict may hold (save_pretrained keeps one).
TIED = ("model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
        "lm_head.weight")
LAYER_PARTS = {"self_attn": "self_attn", "self_attn_layer_norm": "self_attn_norm", "encoder_attn": "cross_attn",
               "encoder_attn_layer_norm": "cross_attn_norm", "fc1": "ffn.fc1", "fc2": "ffn.fc2",
               "final_layer_norm": "ffn_norm"}
# Generation settings that change what beam search or greedy choose, at the values that do not.
NEUTRAL_GENERATION = {"do_sample": False, "num_beam_groups": 1, "diversity_penalty": 0.0,
                      "encoder_no_repeat_ngram_size": 0, "forced_bos_token_id": None, "suppress_tokens": None,
                      "begin_suppress_tokens": None, "exponential_decay_length_penalty": None,
                      "sequence_bias": None, "constraints": None, "force_words_ids": None, "min_new_tokens": None,
                      "max_new_tokens": None, "num_return_sequences": 1}


def sinusoid_halves(positions, d):
    """MarianSinusoidalPositionalEmbedding's table: angles p / 10000^(2i/d) in float64, sin of them in
    columns [0, d/2), cos in [d/2, d), rounded to float32 once."""
    i = np.arange(d // 2, dtype=np.float64)
    angles = np.arange(positions, dtype=np.float64)[:, None] / np.power(10000.0, 2.0 * i / d)[None, :]
    return torch.from_numpy(np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(np.float32))


def need(hf, key, path, kinds):
    if key not in hf:
        raise ConversionError(f"{path}: field '{key}' is missing")
    value = hf[key]
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        raise ConversionError(f"{path}: field '{key}' has the wrong type ({value!r})")
    return value


def convert_config(hf, path, vocab_size, pad, unk):
    """config.json -> the attnscope config (without the generation defaults)."""
    if hf.get("model_type") != "marian":
        raise ConversionError(f"{path}: field 'model_type' is {hf.get('model_type')!r}, expected 'marian'")
    if hf.get("share_encoder_decoder_embeddings", True) is not True:
        raise ConversionError(f"{path}: field 'share_encoder_decoder_embeddings' is false: separate source and "
                              "target vocabularies are not supported")
    for key in ("normalize_before", "normalize_embedding", "add_final_layer_norm"):
        if hf.get(key, False):
            raise ConversionError(f"{path}: field '{key}' is true: only Marian's post-norm layers without an "
                                  "embedding or final LayerNorm are supported")
    if hf.get("static_position_embeddings", True) is not True:
        raise ConversionError(f"{path}: field 'static_position_embeddings' is false: only sinusoidal positions "
                              "are supported")
    if hf.get("tie_word_embeddings", True) is not True:
        raise ConversionError(f"{path}: field 'tie_word_embeddings' is false: only lm_head tied to the shared "
                              "embeddings is supported")
    activation = need(hf, "activation_function", path, (str,))
    if activation not in ACTIVATIONS:
        raise ConversionError(f"{path}: field 'activation_function' is {activation!r}; supported: "
                              f"{', '.join(sorted(ACTIVATIONS))}")
    for a, b in (("encoder_attention_heads", "decoder_attention_heads"), ("encoder_ffn_dim", "decoder_ffn_dim")):
        if need(hf, a, path, (int,)) != need(hf, b, path, (int,)):
            raise ConversionError(f"{path}: fields '{a}' = {hf[a]} and '{b}' = {hf[b]} differ; the engine "
                                  "needs them equal")
    d = need(hf, "d_model", path, (int,))
    for key in ("vocab_size", "decoder_vocab_size"):
        if key in hf and hf[key] is not None and hf[key] != vocab_size:
            raise ConversionError(f"{path}: field '{key}' = {hf[key]} but vocab.json has {vocab_size} pieces")
    eos = need(hf, "eos_token_id", path, (int,))
    start = hf.get("decoder_start_token_id", pad)
    if start is None:
        start = pad
    for key, value in (("eos_token_id", eos), ("decoder_start_token_id", start)):
        if not 0 <= value < vocab_size:
            raise ConversionError(f"{path}: field '{key}' = {value} is outside the vocabulary of {vocab_size}")
    return {
        "architecture": "transformer",
        "d_model": d,
        "n_heads": hf["encoder_attention_heads"],
        "d_ff": hf["encoder_ffn_dim"],
        "n_encoder_layers": need(hf, "encoder_layers", path, (int,)),
        "n_decoder_layers": need(hf, "decoder_layers", path, (int,)),
        "activation": ACTIVATIONS[activation],
        "norm": "post",
        "positions": "sinusoidal_halves",
        "max_positions": need(hf, "max_position_embeddings", path, (int,)),
        "embedding_scale": math.sqrt(d) if hf.get("scale_embedding", False) else 1.0,
        "shared_embeddings": True,
        "tied_output": True,
        "layer_norm_eps": 1e-5,  # nn.LayerNorm's default, which modeling_marian.py keeps
        "src_append_eos": True,
        "special_tokens": {"pad": pad, "unk": unk, "bos": start, "eos": eos},
    }


def generation_defaults(folder, hf_config, config, vocab_size):
    """(suppress_tokens, the `generation` metadata) from generation_config.json, or from config.json's
    generation fields when the snapshot has none (as transformers builds it then)."""
    gen_path = os.path.join(folder, "generation_config.json")
    gen = read_json(folder, "generation_config.json", required=False)
    if gen is None:
        gen, gen_path = hf_config, os.path.join(folder, "config.json")
    for key, neutral in NEUTRAL_GENERATION.items():
        if key in gen and gen[key] != neutral:
            raise ConversionError(f"{gen_path}: field '{key}' = {gen[key]!r} is not supported (the engine "
                                  f"reproduces {key} = {neutral!r})")
    suppress = []
    for words in gen.get("bad_words_ids") or []:
        if not isinstance(words, list) or len(words) != 1 or not isinstance(words[0], int) \
                or not 0 <= words[0] < vocab_size:
            raise ConversionError(f"{gen_path}: field 'bad_words_ids' holds {words!r}; only single token ids of "
                                  "the vocabulary are supported")
        suppress.append(words[0])
    eos = config["special_tokens"]["eos"]
    forced_eos = gen.get("forced_eos_token_id")
    if forced_eos is not None and forced_eos != eos:
        raise ConversionError(f"{gen_path}: field 'forced_eos_token_id' = {forced_eos!r}; only </s> ({eos}) is "
                              "supported")
    num_beams = gen.get("num_beams", 1)
    if not isinstance(num_beams, int) or not 1 <= num_beams <= 64:
        raise ConversionError(f"{gen_path}: field 'num_beams' = {num_beams!r} is outside [1, 64]")
    max_length = gen.get("max_length", 20)
    if not isinstance(max_length, int) or max_length < 2:
        raise ConversionError(f"{gen_path}: field 'max_length' = {max_length!r} must be an integer >= 2")
    early = gen.get("early_stopping", False)
    if early not in (False, True, "never"):
        raise ConversionError(f"{gen_path}: field 'early_stopping' = {early!r}; expected false, true or \"never\"")
    length_penalty = gen.get("length_penalty", 1.0)
    if not isinstance(length_penalty, (int, float)) or isinstance(length_penalty, bool) \
            or not 0.0 <= length_penalty <= 10.0:
        raise ConversionError(f"{gen_path}: field 'length_penalty' = {length_penalty!r} is outside [0, 10]")
    generation = {"strategy": "beam" if num_beams > 1 else "greedy",
                  "beam_size": num_beams,
                  "max_length": max_length - 1,  # HF counts the decoder start token
                  "length_penalty": "power",
                  "alpha": float(length_penalty),
                  "early_stopping": {False: "heuristic", True: "early", "never": "never"}[early],
                  "forced_eos": forced_eos is not None,
                  "renormalize": bool(gen.get("renormalize_logits", False))}
    for key, name, neutral in (("min_length", "min_length", 0), ("no_repeat_ngram_size", "no_repeat_ngram_size", 0),
                               ("repetition_penalty", "repetition_penalty", 1.0)):
        if gen.get(key, neutral) not in (None, neutral):
            generation[name] = gen[key]
    return suppress, generation


def read_vocab(folder):
    """vocab.json (piece -> id) as the list of pieces by id; ids must be 0..V-1, each once."""
    path = os.path.join(folder, "vocab.json")
    vocab = read_json(folder, "vocab.json")
    if not vocab:
        raise ConversionError(f"{path}: expected a non-empty JSON object of piece -> id")
    pieces = [None] * len(vocab)
    for piece, i in vocab.items():
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(vocab) or pieces[i] is not None:
            raise ConversionError(f"{path}: piece {piece!r} has id {i!r}; ids must be 0..{len(vocab) - 1}, each once")
        pieces[i] = piece
    return pieces, vocab


def spm_bytes(folder, name):
    return files.read_bytes(folder, name)


def map_tensors(weights, path, config, vocab_size):
    """HF state dict -> attnscope tensors; checks the tied copies and the position tables."""
    weights = dict(weights)
    d = config["d_model"]
    tied = [n for n in TIED if n in weights]
    if not tied:
        raise ConversionError(f"{path}: tensor 'model.shared.weight' is missing (nor any tied copy: "
                              f"{', '.join(TIED[1:])})")
    shared = weights[tied[0]]
    if list(shared.shape) != [vocab_size, d]:
        raise ConversionError(f"{path}: tensor '{tied[0]}' has shape {list(shared.shape)} but vocab.json has "
                              f"{vocab_size} pieces and d_model is {d}: expected [{vocab_size}, {d}]")
    for n in tied[1:]:
        if weights[n].shape != shared.shape or not torch.equal(weights[n].float(), shared.float()):
            raise ConversionError(f"{path}: tensor '{n}' differs from '{tied[0]}'; they must be tied (equal)")
    for n in tied:
        del weights[n]
    table = sinusoid_halves(config["max_positions"], d)
    for side in ("encoder", "decoder"):
        n = f"model.{side}.embed_positions.weight"
        if n in weights:
            t = weights.pop(n).float()
            if list(t.shape) != list(table.shape):
                raise ConversionError(f"{path}: tensor '{n}' has shape {list(t.shape)}, expected "
                                      f"{list(table.shape)} (max_position_embeddings x d_model)")
            worst = (t - table).abs().max().item()
            if not worst <= 1e-4:
                raise ConversionError(f"{path}: tensor '{n}' is not Marian's sinusoid (sin in the first half, cos "
                                      f"in the second, from position 0): it differs by {worst:.3g}")
    out = {"src_embed.weight": shared.float()}
    if "final_logits_bias" not in weights:
        raise ConversionError(f"{path}: tensor 'final_logits_bias' is missing")
    bias = weights.pop("final_logits_bias")
    if list(bias.shape) not in ([1, vocab_size], [vocab_size]):
        raise ConversionError(f"{path}: tensor 'final_logits_bias' has shape {list(bias.shape)}, expected "
                              f"[1, {vocab_size}]")
    out["output.bias"] = bias.reshape(vocab_size).float()
    for name in list(weights):
        parts = name.split(".")
        # model.{encoder,decoder}.layers.N.<part>[.q_proj].{weight,bias}
        if len(parts) >= 6 and parts[0] == "model" and parts[1] in ("encoder", "decoder") and parts[2] == "layers" \
                and parts[4] in LAYER_PARTS and (parts[4] not in ("encoder_attn", "encoder_attn_layer_norm")
                                                 or parts[1] == "decoder"):
            out[".".join([parts[1], "layers", parts[3], LAYER_PARTS[parts[4]]] + parts[5:])] = weights.pop(name).float()
    if weights:
        raise ConversionError(f"{path}: unexpected tensors {sorted(weights)[:5]} (not part of a MarianMTModel)")
    expected = expected_shapes(config, vocab_size)
    for n, shape in expected.items():
        if n not in out:
            raise ConversionError(f"{path}: tensor for '{n}' is missing")
        if list(out[n].shape) != shape:
            raise ConversionError(f"{path}: tensor for '{n}' has shape {list(out[n].shape)}, expected {shape}")
    extra = sorted(set(out) - set(expected))
    if extra:
        raise ConversionError(f"{path}: unexpected tensors for {extra[:5]} (more layers than config.json says?)")
    return out


def expected_shapes(c, vocab_size):
    d, f = c["d_model"], c["d_ff"]
    shapes = {"src_embed.weight": [vocab_size, d], "output.bias": [vocab_size]}

    def linear(prefix, n_out, n_in):
        shapes[prefix + ".weight"], shapes[prefix + ".bias"] = [n_out, n_in], [n_out]

    def block(prefix, attentions):
        for a in attentions:
            for p in ("q_proj", "k_proj", "v_proj", "out_proj"):
                linear(f"{prefix}.{a}.{p}", d, d)
            shapes[f"{prefix}.{a}_norm.weight"] = shapes[f"{prefix}.{a}_norm.bias"] = [d]
        linear(prefix + ".ffn.fc1", f, d)
        linear(prefix + ".ffn.fc2", d, f)
        shapes[prefix + ".ffn_norm.weight"] = shapes[prefix + ".ffn_norm.bias"] = [d]

    for i in range(c["n_encoder_layers"]):
        block(f"encoder.layers.{i}", ["self_attn"])
    for i in range(c["n_decoder_layers"]):
        block(f"decoder.layers.{i}", ["self_attn", "cross_attn"])
    return shapes


def tokenizer_spec(folder, name, unk):
    return {"type": "sentencepiece", "model": base64.b64encode(spm_bytes(folder, name)).decode("ascii"),
            "language_codes": True, "unk": unk}


def convert(folder, out, dtype="F32", name=None, positions="sinusoidal_halves"):
    """Writes `out` from the snapshot `folder`; returns the attnscope config. Raises ConversionError.
    `positions` = "sinusoidal" writes Vaswani's interleaved layout instead: a wrong model on purpose,
    for the tests that must see the comparison with Hugging Face fail."""
    config_path = os.path.join(folder, "config.json")
    hf_config = read_json(folder, "config.json")
    pieces, vocab = read_vocab(folder)
    vocab_path = os.path.join(folder, "vocab.json")
    tok_config = read_json(folder, "tokenizer_config.json")
    tok_path = os.path.join(folder, "tokenizer_config.json")
    if tok_config.get("separate_vocabs", False):
        raise ConversionError(f"{tok_path}: field 'separate_vocabs' is true: separate vocabularies are not supported")
    specials = {}
    for key, default in (("unk_token", "<unk>"), ("pad_token", "<pad>"), ("eos_token", "</s>")):
        piece = tok_config.get(key, default)
        if isinstance(piece, dict):  # an AddedToken as saved by older versions
            piece = piece.get("content")
        if piece not in vocab:
            raise ConversionError(f"{vocab_path}: the {key} {piece!r} of tokenizer_config.json is not in it")
        specials[key] = vocab[piece]
    pad = hf_config.get("pad_token_id", specials["pad_token"])
    if pad != specials["pad_token"]:
        raise ConversionError(f"{config_path}: field 'pad_token_id' = {pad!r} but vocab.json has the pad at "
                              f"{specials['pad_token']}")
    weights_path, weights = read_weights(folder)
    layer = r"^model\.{}\.layers\.(\d+)\."
    files.bound_config(hf_config, config_path, weights, weights_path,
                       sizes=("d_model", "encoder_ffn_dim", "decoder_ffn_dim", "encoder_attention_heads",
                              "decoder_attention_heads"),
                       layers=[("encoder_layers", layer.format("encoder")), ("decoder_layers", layer.format("decoder"))])
    config = convert_config(hf_config, config_path, len(pieces), pad, specials["unk_token"])
    # The sinusoid table is computed, not read: bounded like the engine's derived tables.
    files.bound_table(config_path, "max_position_embeddings", 4 * config["max_positions"] * config["d_model"],
                      weights_path)
    if config["special_tokens"]["eos"] != specials["eos_token"]:
        raise ConversionError(f"{config_path}: field 'eos_token_id' = {config['special_tokens']['eos']} but vocab.json "
                              f"has </s> at {specials['eos_token']}")
    suppress, generation = generation_defaults(folder, hf_config, config, len(pieces))
    if suppress:
        config["suppress_tokens"] = suppress
    tensors = map_tensors(weights, weights_path, config, len(pieces))
    if positions not in ("sinusoidal_halves", "sinusoidal"):
        raise ValueError(f"positions must be 'sinusoidal_halves' or 'sinusoidal', got {positions!r}")
    config["positions"] = positions
    unk_piece = pieces[specials["unk_token"]]
    snapshot = os.path.basename(os.path.abspath(folder))
    metadata = {
        "format": "attnscope",
        "format_version": "1",
        "config": json.dumps(config, ensure_ascii=False),
        "tokenizer": json.dumps(tokenizer_spec(folder, "source.spm", unk_piece)),
        "tgt_tokenizer": json.dumps(tokenizer_spec(folder, "target.spm", unk_piece)),
        "src_vocab": json.dumps(pieces, ensure_ascii=False),
        "tgt_vocab": json.dumps(pieces, ensure_ascii=False),
        "generation": json.dumps(generation),
        "name": name or snapshot,
        "description": f"converted from the Hugging Face snapshot {snapshot} by models/convert/convert_hf.py",
    }
    safetensors_io.save(out, tensors, metadata, dtype=dtype)
    return config
