"""attnscope reference implementation (PyTorch) of the model file described in models/FORMAT.md."""

from . import safetensors_io, tokenizer, model, export  # noqa: F401
