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
    metadata = {
        "format": "attnscope",
        "format_version": "1",
        "config": _dumps(config),
        "tokenizer": _dumps(tokenizer_spec),
        "src_vocab": _dumps(list(src_vocab)),
        "tgt_vocab": _dumps(list(tgt_vocab)),
    }
    if name is not None:
        metadata["name"] = str(name)
    if description is not None:
        metadata["description"] = str(description)
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
