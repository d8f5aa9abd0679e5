"""Minimal safetensors reader/writer (no dependency on the `safetensors` package).

Layout: 8-byte little-endian u64 N, then N bytes of UTF-8 JSON header (padded with spaces to a
multiple of 8), then the data section. The header maps tensor name ->
{"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the data section start)
plus "__metadata__": {str: str}.

BF16 has no numpy type: its 16-bit patterns travel as int16 and are viewed as torch.bfloat16.
"""

import json
import struct

import numpy as np
import torch

_NP_DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<i2")}
_TORCH_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def _to_numpy(t):
    """The tensor's stored bits as a numpy array of _NP_DTYPES' type (bfloat16 as its int16 patterns)."""
    return t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()


def _from_numpy(arr, dtype):
    t = torch.from_numpy(arr)
    return t.view(torch.bfloat16) if dtype == "BF16" else t


def save(path, tensors, metadata=None, dtype="F32"):
    """Write `tensors` (name -> torch.Tensor) converted to `dtype` ("F32", "F16" or "BF16")."""
    if dtype not in _NP_DTYPES:
        raise ValueError(f"unsupported dtype {dtype!r}")
    metadata = dict(metadata or {})
    for k, v in metadata.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(f"metadata must map str to str, got {k!r}: {type(v).__name__}")
    header = {"__metadata__": metadata}
    chunks = []
    offset = 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().to(_TORCH_DTYPES[dtype]).contiguous()
        data = _to_numpy(t).astype(_NP_DTYPES[dtype], copy=False).tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    hbytes = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * (-len(hbytes) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for c in chunks:
            f.write(c)


def load(path):
    """Return (tensors, metadata); tensors keep their stored dtype (float32, float16 or bfloat16)."""
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 8:
        raise ValueError("file too short for a safetensors header")
    (n,) = struct.unpack("<Q", buf[:8])
    if 8 + n > len(buf):
        raise ValueError("header length exceeds file size")
    header = json.loads(buf[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {}) or {}
    data = memoryview(buf)[8 + n:]
    tensors = {}
    for name, info in header.items():
        dt = info["dtype"]
        if dt not in _NP_DTYPES:
            raise ValueError(f"tensor {name}: unsupported dtype {dt}")
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape)) if shape else 1
        if end - begin != count * _NP_DTYPES[dt].itemsize or end > len(data):
            raise ValueError(f"tensor {name}: data_offsets do not match shape/dtype")
        arr = np.frombuffer(data[begin:end], dtype=_NP_DTYPES[dt]).reshape(shape).copy()
        tensors[name] = _from_numpy(arr, dt)
    return tensors, metadata
