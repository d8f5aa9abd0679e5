"""Reading a Hugging Face snapshot's files for the converters (hf_bert.py, hf_marian.py, hf_gpt2.py)
as untrusted input: every file's size is checked before it is read, JSON's nesting before it is
parsed, a weights file's header before its data, and a config's numbers against the tensors the
weights file holds before anything is built from them. Each refusal is a ConversionError whose
message is "<file>: <field or part>: <why>".

Limits (docs/reliability.md, "Converting a Hugging Face snapshot"):
  * a JSON, text or SentencePiece file: MAX_TEXT_BYTES; JSON nested at most MAX_JSON_DEPTH deep;
  * a weights file: MAX_WEIGHTS_BYTES; a safetensors header MAX_HEADER_BYTES; every tensor's shape
    and offsets checked against the file's size, the tensors tiling the data section exactly (no
    overlap, gap or trailing byte: the safetensors format requires it); pytorch_model.bin is read
    by torch_checkpoint.py, never by torch.load;
  * a file reached through a symbolic link that resolves outside the snapshot folder is refused,
    except for the Hugging Face cache's own layout (<repo>/snapshots/<rev>/<file> -> <repo>/blobs/).
"""

import io
import json
import os
import re
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import torch_checkpoint  # noqa: E402

MAX_TEXT_BYTES = 64 << 20  # bert-base-multilingual's tokenizer.json is 2.8 MB, GPT-2's vocab.json 1 MB
MAX_JSON_DEPTH = 256  # no snapshot file nests deeper than 6
MAX_HEADER_BYTES = 64 << 20
# attnscope's engine runs in a 32-bit WebAssembly heap: a model over 4 GiB can never load there.
MAX_WEIGHTS_BYTES = 4 << 30
MAX_DIMS = 8
# A table built from a config number (Marian's sinusoid) may take the larger of this and the
# weights file's size, as the engine bounds its own derived tables.
MIN_TABLE_BUDGET = 16 << 20


class ConversionError(ValueError):
    """A checkpoint the converter cannot turn into an attnscope file; the message names the file
    and the field."""


SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
                      "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8,
                      "U8": torch.uint8, "BOOL": torch.bool}


# ---------------------------------------------------------------------------------- paths

def inside(folder, path):
    """Whether `path`, links resolved, is in `folder` (or is a Hugging Face cache blob of the repo
    whose snapshots/<rev> folder `folder` is)."""
    real_folder, real = os.path.realpath(folder), os.path.realpath(path)
    if os.path.commonpath([real_folder, real]) == real_folder:
        return True
    snapshots = os.path.dirname(real_folder)
    blobs = os.path.join(os.path.dirname(snapshots), "blobs")
    return os.path.basename(snapshots) == "snapshots" and os.path.dirname(real) == blobs


def path_in(folder, name):
    """The path of `name` in the snapshot `folder`: it must exist and be a regular file of the folder."""
    path = os.path.join(folder, name)
    if os.path.lexists(path) and not inside(folder, path):
        raise ConversionError(f"{path}: a symbolic link to {os.path.realpath(path)}, outside the snapshot folder: "
                              "refused (copy the file into the folder if it belongs to the model)")
    if not os.path.isfile(path):
        raise ConversionError(f"{path}: file not found")
    return path


def exists_in(folder, name):
    """Whether the snapshot has `name` (a link that leaves the folder counts, and is refused on reading)."""
    return os.path.lexists(os.path.join(folder, name))


def read_bytes(folder, name, limit=MAX_TEXT_BYTES):
    path = path_in(folder, name)
    with open(path, "rb") as f:
        size = f.seek(0, io.SEEK_END)
        if size > limit:
            raise ConversionError(f"{path}: size: {size} bytes, more than the {limit} such a file may have")
        f.seek(0)
        return f.read(limit + 1)[:limit]


def read_text(folder, name):
    """The UTF-8 text of `name`, line ends read as open()'s universal newlines read them."""
    path = os.path.join(folder, name)
    try:
        text = read_bytes(folder, name).decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConversionError(f"{path}: encoding: not UTF-8 ({e})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


# ---------------------------------------------------------------------------------- JSON

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text):
    """How deep `text`'s arrays and objects nest (strings skipped), without recursion."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    if not brackets:
        return 0
    steps = np.frombuffer(brackets, dtype=np.uint8)
    return int(np.cumsum(np.where((steps == ord("[")) | (steps == ord("{")), 1, -1)).max())


def parse_json(text, path):
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ConversionError(f"{path}: nesting: arrays and objects nest {depth} levels deep, more than "
                              f"{MAX_JSON_DEPTH}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ConversionError(f"{path}: not valid JSON ({e})") from None
    except RecursionError:
        raise ConversionError(f"{path}: nesting: too deep to parse") from None


def read_json(folder, name, required=True):
    """The JSON object in `name`; None when it is absent and not `required`."""
    path = os.path.join(folder, name)
    if not required and not exists_in(folder, name):
        return None
    value = parse_json(read_text(folder, name), path)
    if not isinstance(value, dict):
        raise ConversionError(f"{path}: expected a JSON object")
    return value


# ---------------------------------------------------------------------------------- weights

def read_safetensors(path):
    """{name: tensor} of a safetensors file, every dtype Hugging Face writes. The header is read and
    checked first; the data only once every tensor's place in it is known to be sound."""
    with open(path, "rb") as f:
        size = f.seek(0, io.SEEK_END)
        if size > MAX_WEIGHTS_BYTES:
            raise ConversionError(f"{path}: size: {size} bytes, more than the {MAX_WEIGHTS_BYTES} a model may have")
        if size < 8:
            raise ConversionError(f"{path}: truncated: {size} bytes, shorter than the 8-byte header length")
        f.seek(0)
        (n,) = struct.unpack("<Q", f.read(8))
        if n > MAX_HEADER_BYTES:
            raise ConversionError(f"{path}: header length: {n} bytes, more than {MAX_HEADER_BYTES}")
        if 8 + n > size:
            raise ConversionError(f"{path}: truncated: the header says {n} bytes of JSON, the file has {size - 8}")
        try:
            text = f.read(n).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ConversionError(f"{path}: the header is not valid JSON ({e})") from None
        try:
            header = parse_json(text, path)
        except ConversionError as e:
            raise ConversionError(str(e).replace("not valid JSON", "the header is not valid JSON")) from None
        if not isinstance(header, dict):
            raise ConversionError(f"{path}: the header is not a JSON object")
        header.pop("__metadata__", None)
        data_size = size - 8 - n
        places = []
        for name, info in header.items():
            dtype, shape, begin, end = tensor_place(path, name, info, data_size)
            places.append((begin, end, name, dtype, shape))
        check_tiling(path, places, data_size)
        tensors = {}
        for begin, end, name, dtype, shape in places:
            raw = bytearray(end - begin)
            f.seek(8 + n + begin)
            if f.readinto(raw) != len(raw):
                raise ConversionError(f"{path}: truncated: tensor '{name}' could not be read whole")
            tensors[name] = (torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)).reshape(shape)
    return tensors


def tensor_place(path, name, info, data_size):
    """(dtype, shape, begin, end) of one header entry, each checked against the data section's size."""
    def natural(v):
        return isinstance(v, int) and not isinstance(v, bool)

    if not isinstance(info, dict) or info.get("dtype") not in SAFETENSORS_DTYPES \
            or not isinstance(info.get("shape"), list) or not isinstance(info.get("data_offsets"), list):
        raise ConversionError(f"{path}: tensor '{name}': dtype, shape or data_offsets missing or unsupported "
                              f"({info!r:.200})")
    shape, offsets = info["shape"], info["data_offsets"]
    if len(shape) > MAX_DIMS or not all(natural(d) for d in shape):
        raise ConversionError(f"{path}: tensor '{name}': shape: {shape!r:.120} is not a list of at most {MAX_DIMS} "
                              "integers")
    if any(d < 0 for d in shape):
        raise ConversionError(f"{path}: tensor '{name}': shape: {shape} has a negative dimension")
    if len(offsets) != 2 or not all(natural(o) and o >= 0 for o in offsets) or offsets[0] > offsets[1]:
        raise ConversionError(f"{path}: tensor '{name}': data_offsets: {offsets!r:.120} are not two ordered "
                              "non-negative integers")
    begin, end = offsets
    if end > data_size:
        raise ConversionError(f"{path}: truncated: tensor '{name}' ends at data byte {end}, the file has {data_size}")
    dtype = SAFETENSORS_DTYPES[info["dtype"]]
    count = 1
    for d in shape:
        count *= d
    if end - begin != count * torch.empty(0, dtype=dtype).element_size():
        raise ConversionError(f"{path}: tensor '{name}': data_offsets [{begin}, {end}] do not hold {shape} "
                              f"{info['dtype']}")
    return dtype, shape, begin, end


def check_tiling(path, places, data_size):
    """The safetensors format requires the tensors to cover the data section exactly."""
    places.sort(key=lambda p: (p[0], p[1]))
    cursor, previous = 0, None
    for begin, end, name, _, _ in places:
        if begin < cursor:
            raise ConversionError(f"{path}: tensor '{name}': data_offsets [{begin}, {end}] overlap tensor "
                                  f"'{previous}' (which ends at {cursor})")
        if begin > cursor:
            raise ConversionError(f"{path}: tensor '{name}': data_offsets [{begin}, {end}] leave bytes {cursor} to "
                                  f"{begin} of the data section unused (the format allows no gap)")
        cursor, previous = end, name
    if cursor != data_size:
        raise ConversionError(f"{path}: trailing data: the tensors end at data byte {cursor}, the file has "
                              f"{data_size} (the format allows no trailing bytes)")


def read_weights(folder):
    """-> (path, {name: tensor}) from model.safetensors, else pytorch_model.bin."""
    st = os.path.join(folder, "model.safetensors")
    if exists_in(folder, "model.safetensors"):
        return st, read_safetensors(path_in(folder, "model.safetensors"))
    pt = os.path.join(folder, "pytorch_model.bin")
    if exists_in(folder, "pytorch_model.bin"):
        try:
            return pt, torch_checkpoint.read_state_dict(path_in(folder, "pytorch_model.bin"), MAX_WEIGHTS_BYTES)
        except torch_checkpoint.CheckpointError as e:
            raise ConversionError(str(e)) from None
    if exists_in(folder, "model.safetensors.index.json") or exists_in(folder, "pytorch_model.bin.index.json"):
        raise ConversionError(f"{folder}: sharded weights (*.index.json) are not supported: save the model as one file")
    raise ConversionError(f"{st}: file not found (nor {pt})")


# ---------------------------------------------------------------------------------- config sizes

def bound_config(hf, config_path, weights, weights_path, sizes=(), layers=()):
    """Refuses a config.json number that would size something far beyond the tensors present, before
    anything is allocated from it. `sizes`: fields that are a dimension of some tensor (a width,
    a vocabulary, a number of positions): each must be at most the largest dimension in the file.
    `layers`: (field, pattern) pairs, the pattern's group 1 a layer index in a tensor name: each
    field must be at most the number of layers present. Exact agreement is checked later, against
    each tensor's shape; only integers are bounded here (the converters refuse other types)."""
    largest = max((max(t.shape) for t in weights.values() if t.dim()), default=0)
    for field in sizes:
        value = hf.get(field)
        if isinstance(value, int) and value > largest:
            raise ConversionError(f"{config_path}: field '{field}': {value} is larger than every dimension of the "
                                  f"tensors in {weights_path} (the largest is {largest})")
    for field, pattern in layers:
        value = hf.get(field)
        if isinstance(value, int):
            present = {m.group(1) for m in map(re.compile(pattern).match, weights) if m}
            if value > len(present):
                raise ConversionError(f"{config_path}: field '{field}': {value} layers, but {weights_path} holds "
                                      f"{len(present)}")


def bound_table(config_path, field, nbytes, weights_path):
    """A table derived from a config number may take the larger of MIN_TABLE_BUDGET and the weights
    file's size."""
    budget = max(MIN_TABLE_BUDGET, os.path.getsize(weights_path))
    if nbytes > budget:
        raise ConversionError(f"{config_path}: field '{field}': its table would take {nbytes} bytes, more than the "
                              f"{budget} allowed (the larger of {MIN_TABLE_BUDGET} and the weights file's size)")
