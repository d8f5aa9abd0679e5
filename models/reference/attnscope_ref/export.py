"""Write / read attnscope model files (models/FORMAT.md)."""

import json

import torch

from . import safetensors_io
from . import rnn
from .model import Transformer, complete_config


def _family(config):
    """(model class, complete_config) of the family config["architecture"] names (absent: transformer)."""
    if config.get("architecture", "transformer") == "rnn":
        return rnn.RNNSeq2Seq, rnn.complete_config
    return Transformer, complete_config


def _dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def export(model, config, tokenizer_spec, src_vocab, tgt_vocab, path, dtype="F32", name=None, description=None):
    config = _family(config)[1](config)
    if config["shared_embeddings"] and list(src_vocab) != list(tgt_vocab):
        raise ValueError("shared_embeddings requires src_vocab == tgt_vocab")
    tensors = {k: v for k, v in model.state_dict().items()}
    # Model structure already omits tgt_embed / output.weight; double-check the contract.
    if config["shared_embeddings"]:
        assert "tgt_embed.weight" not in tensors
    if config.get("tied_output"):
        assert "output.weight" not in tensors
    assert tensors["src_embed.weight"].shape[0] == len(src_vocab)
    assert tensors["output.bias"].shape[0] == len(tgt_vocab)
    save_model_file(path, tensors, config, tokenizer_spec, src_vocab, tgt_vocab, dtype, name, description)


def save_model_file(path, tensors, config, tokenizer_spec, src_vocab, tgt_vocab, dtype="F32", name=None,
                    description=None, generation=None):
    """One attnscope file, any family: the tensors plus the metadata of models/FORMAT.md."""
    metadata = {
        "format": "attnscope",
        "format_version": "1",
        "config": _dumps(config),
        "tokenizer": _dumps(tokenizer_spec),
        "src_vocab": _dumps(list(src_vocab)),
        "tgt_vocab": _dumps(list(tgt_vocab)),
    }
    for key, value in (("name", name), ("description", description)):
        if value is not None:
            metadata[key] = str(value)
    if generation is not None:
        metadata["generation"] = _dumps(generation)
    safetensors_io.save(path, tensors, metadata, dtype=dtype)


def load_model(path):
    """-> (model [float32, eval mode], config, tokenizer_spec, src_vocab, tgt_vocab)"""
    tensors, meta = safetensors_io.load(path)
    if meta.get("format") != "attnscope" or meta.get("format_version") != "1":
        raise ValueError(f"{path}: not an attnscope v1 file")
    config = json.loads(meta["config"])
    tokenizer_spec = json.loads(meta["tokenizer"])
    src_vocab = json.loads(meta["src_vocab"])
    tgt_vocab = json.loads(meta["tgt_vocab"])
    model = _family(config)[0].from_config(config, len(src_vocab), len(tgt_vocab))
    state = {k: v.to(torch.float32) for k, v in tensors.items()}
    expected = model.state_dict()
    extra = sorted(set(state) - set(expected))
    missing = sorted(set(expected) - set(state))
    if extra or missing:
        raise ValueError(f"{path}: unexpected tensors {extra}, missing tensors {missing}")
    for k, v in expected.items():
        if tuple(state[k].shape) != tuple(v.shape):
            raise ValueError(f"{path}: {k} has shape {list(state[k].shape)}, expected {list(v.shape)}")
    model.load_state_dict(state, strict=True)
    model.eval()
    return model, config, tokenizer_spec, src_vocab, tgt_vocab


def load_one_vocabulary_file(path, model_class):
    """-> (model [float32, eval], config, tokenizer_spec, vocab) of a family with one vocabulary
    (BERT, decoder-only), `model_class(config, vocab_size)` its module."""
    tensors, meta = safetensors_io.load(path)
    config = json.loads(meta["config"])
    vocab = json.loads(meta["src_vocab"])
    model = model_class(config, len(vocab))
    model.load_state_dict({k: v.to(torch.float32) for k, v in tensors.items()}, strict=True)
    return model.eval(), config, json.loads(meta["tokenizer"]), vocab
