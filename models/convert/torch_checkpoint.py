"""Reads a PyTorch state dict (pytorch_model.bin) without running anything the file names.

torch.load cannot be trusted with a downloaded file: without weights_only it unpickles any global,
and with it, torch 1.13 (Debian's python3-torch) still hands a TorchScript archive to
torch.jit.load, whose __setstate__ code runs (CVE-2025-32434). This reader never calls either. It
accepts only the zip layout that torch.save writes since torch 1.6:

    <prefix>/data.pkl        the state dict, pickled (protocol 2)
    <prefix>/data/<key>      each storage's raw little-endian bytes
    <prefix>/version, byteorder, .data/...   bookkeeping, not read

data.pkl is unpickled by a restricted unpickler: only the opcodes that a state dict uses, only the
globals torch._utils._rebuild_tensor_v2, collections.OrderedDict and the typed storage classes
(torch.FloatStorage, ...), BUILD only on an OrderedDict (its _metadata, dropped), and persistent
ids only of the form ("storage", <storage class>, key, location, numel), whose bytes this module
reads itself from data/<key>. Refused, naming the file: a TorchScript archive (constants.pkl,
code/), a legacy checkpoint (a tar file or a bare pickle stream), a compressed or oversized entry,
any other global or opcode, a storage whose record is missing or of another size, a tensor whose
offset, shape or strides reach outside its storage.
"""

import collections
import io
import pickle
import pickletools
import re
import zipfile

import torch


class CheckpointError(ValueError):
    """A pytorch_model.bin this reader refuses; the message names the file."""


MAX_PICKLE_BYTES = 64 << 20  # a state dict's data.pkl is a few KB per tensor
MAX_ENTRIES = 1 << 16
MAX_DIMS = 8
# A tensor may view the storage it shares with its tied copies (Marian's embeddings: four views of
# one storage); more elements viewed than this many times those stored is refused.
MAX_VIEW_FACTOR = 8

STORAGES = {"FloatStorage": torch.float32, "DoubleStorage": torch.float64, "HalfStorage": torch.float16,
            "BFloat16Storage": torch.bfloat16, "LongStorage": torch.int64, "IntStorage": torch.int32,
            "ShortStorage": torch.int16, "CharStorage": torch.int8, "ByteStorage": torch.uint8,
            "BoolStorage": torch.bool}

# The opcodes torch.save's protocol-2 pickle of a state dict uses (and harmless neighbours). Not
# here: INST, OBJ, NEWOBJ, NEWOBJ_EX and EXT*, which build objects of a named class.
OPCODES = {"PROTO", "FRAME", "STOP", "MARK", "POP", "POP_MARK", "DUP", "EMPTY_DICT", "DICT", "EMPTY_LIST", "LIST",
           "APPEND", "APPENDS", "EMPTY_TUPLE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "SETITEM", "SETITEMS",
           "GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "BINPERSID", "BINPUT", "LONG_BINPUT", "MEMOIZE", "BINGET",
           "LONG_BINGET", "BININT", "BININT1", "BININT2", "LONG1", "NONE", "NEWTRUE", "NEWFALSE", "BINUNICODE",
           "SHORT_BINUNICODE", "BINUNICODE8", "BINFLOAT"}


class _StorageType:
    """What a pickled torch.<X>Storage global stands for: a dtype. Not callable."""

    def __init__(self, name):
        self.name, self.dtype = name, STORAGES[name]


def read_state_dict(path, max_bytes):
    """{name: tensor} of the checkpoint at `path`; a file over `max_bytes` is refused unread."""
    with open(path, "rb") as f:
        size = f.seek(0, io.SEEK_END)
        if size > max_bytes:
            raise CheckpointError(f"{path}: size: {size} bytes, more than the {max_bytes} a checkpoint may have")
        f.seek(0)
        head = f.read(512)
        if not head.startswith(b"PK\x03\x04"):
            if head[257:262] == b"ustar":
                raise CheckpointError(f"{path}: a legacy (tar) PyTorch checkpoint: refused, as it can run code "
                                      "when loaded; re-save it with torch.save's zip format or as safetensors")
            if head[:1] == b"\x80":
                raise CheckpointError(f"{path}: a legacy (bare pickle) PyTorch checkpoint: refused, as it can run "
                                      "code when loaded; re-save it with torch.save's zip format or as safetensors")
            raise CheckpointError(f"{path}: not a PyTorch zip checkpoint (it starts with {head[:8]!r})")
        f.seek(0)
        try:
            archive = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            raise CheckpointError(f"{path}: not a readable zip archive ({e})") from None
        with archive:
            return _Reader(path, archive, size).state_dict()


class _Reader:
    def __init__(self, path, archive, size):
        self.path, self.archive = path, archive
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES:
            raise CheckpointError(f"{path}: {len(infos)} zip entries, more than {MAX_ENTRIES}")
        prefixes = {info.filename.split("/", 1)[0] for info in infos}
        if len(prefixes) != 1 or any("/" not in info.filename for info in infos):
            raise CheckpointError(f"{path}: the zip entries are not all in one folder, as torch.save writes them")
        self.prefix = prefixes.pop() + "/"
        names = {info.filename[len(self.prefix):]: info for info in infos}
        if "constants.pkl" in names or any(n.startswith("code/") for n in names):
            raise CheckpointError(f"{path}: a TorchScript archive (constants.pkl, code/), not a state dict: refused, "
                                  "as loading it runs the archive's code")
        total = 0
        for name, info in names.items():
            if not (name in ("data.pkl", "version", ".format_version", ".storage_alignment", "byteorder")
                    or re.fullmatch(r"data/\d{1,12}", name) or name.startswith(".data/")):
                raise CheckpointError(f"{path}: unexpected zip entry {info.filename!r} (not part of a state dict "
                                      "saved by torch.save)")
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise CheckpointError(f"{path}: zip entry {info.filename!r} is compressed; torch.save stores "
                                      "entries uncompressed")
            total += info.file_size
        if total > size:
            raise CheckpointError(f"{path}: the zip entries claim {total} bytes, more than the file's {size} "
                                  "(overlapping entries)")
        if "byteorder" in names and self._read(names["byteorder"], 16) != b"little":
            raise CheckpointError(f"{path}: 'byteorder' is not 'little'")
        if "data.pkl" not in names:
            raise CheckpointError(f"{path}: no data.pkl entry: not a state dict saved by torch.save")
        self.entries = names
        self.storages = {}  # key -> (dtype, 1-D tensor)
        self.storage_ids = set()  # id() of those tensors: a tensor is rebuilt only from one of them
        self.stored = self.viewed = 0

    def _read(self, info, limit):
        if info.file_size > limit:
            raise CheckpointError(f"{self.path}: zip entry {info.filename!r} has {info.file_size} bytes, more "
                                  f"than {limit}")
        try:
            with self.archive.open(info) as f:
                data = f.read(info.file_size + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
            raise CheckpointError(f"{self.path}: zip entry {info.filename!r} cannot be read ({e})") from None
        if len(data) != info.file_size:
            raise CheckpointError(f"{self.path}: zip entry {info.filename!r} holds {len(data)} bytes, its header "
                                  f"says {info.file_size}")
        return data

    def state_dict(self):
        pkl = self._read(self.entries["data.pkl"], MAX_PICKLE_BYTES)
        try:
            for op, _, _ in pickletools.genops(pkl):
                if op.name not in OPCODES:
                    raise CheckpointError(f"{self.path}: data.pkl uses the pickle opcode {op.name}, which a state "
                                          "dict does not need: refused without running it")
        except (ValueError, EOFError) as e:
            if isinstance(e, CheckpointError):
                raise
            raise CheckpointError(f"{self.path}: data.pkl is not a valid pickle ({e})") from None
        try:
            state = _Unpickler(io.BytesIO(pkl), self).load()
        except CheckpointError:
            raise
        except Exception as e:  # a malformed stream fails in many ways inside pickle
            raise CheckpointError(f"{self.path}: data.pkl cannot be read as a state dict "
                                  f"({type(e).__name__}: {e})") from None
        if not isinstance(state, dict):
            raise CheckpointError(f"{self.path}: data.pkl holds a {type(state).__name__}, not a state dict")
        for name, tensor in state.items():
            if not isinstance(name, str) or not isinstance(tensor, torch.Tensor):
                raise CheckpointError(f"{self.path}: data.pkl maps {name!r} to a {type(tensor).__name__}; a state "
                                      "dict maps names to tensors")
        return dict(state)

    def storage(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise CheckpointError(f"{self.path}: data.pkl has a persistent id {pid!r:.80}, not a storage")
        _, kind, key, location, numel = pid
        if not isinstance(kind, _StorageType) or not isinstance(key, str) or not isinstance(location, str) \
                or not _natural(numel):
            raise CheckpointError(f"{self.path}: data.pkl has a malformed storage record {pid!r:.120}")
        if key in self.storages:
            dtype, data = self.storages[key]
            if dtype != kind.dtype or data.numel() != numel:
                raise CheckpointError(f"{self.path}: storage {key!r} is named with two dtypes or sizes")
            return data
        info = self.entries.get(f"data/{key}")
        if info is None:
            raise CheckpointError(f"{self.path}: storage {key!r}: zip entry {self.prefix}data/{key} is missing")
        itemsize = torch.empty(0, dtype=kind.dtype).element_size()
        if info.file_size != numel * itemsize:
            raise CheckpointError(f"{self.path}: storage {key!r}: {numel} {kind.name} elements need "
                                  f"{numel * itemsize} bytes, its record has {info.file_size}")
        raw = bytearray(self._read(info, info.file_size))
        data = torch.frombuffer(raw, dtype=kind.dtype) if numel else torch.empty(0, dtype=kind.dtype)
        self.storages[key] = (kind.dtype, data)
        self.storage_ids.add(id(data))
        self.stored += numel
        return data

    def rebuild_tensor(self, storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None, *rest):
        if rest or id(storage) not in self.storage_ids:
            raise CheckpointError(f"{self.path}: data.pkl rebuilds a tensor from something other than a storage")
        if not (_natural(offset) and isinstance(size, tuple) and isinstance(stride, tuple)
                and len(size) == len(stride) <= MAX_DIMS and all(map(_natural, size + stride))):
            raise CheckpointError(f"{self.path}: data.pkl has a tensor with a malformed offset, shape or stride "
                                  f"({offset!r:.40}, {size!r:.80}, {stride!r:.80})")
        count = 1
        for d in size:
            count *= d
        last = offset + sum((d - 1) * s for d, s in zip(size, stride)) if count else offset - 1
        if offset > storage.numel() or last >= storage.numel():
            raise CheckpointError(f"{self.path}: a tensor of shape {list(size)}, offset {offset} and strides "
                                  f"{list(stride)} reaches past its storage of {storage.numel()} elements")
        self.viewed += count
        if self.viewed > MAX_VIEW_FACTOR * max(self.stored, 1):
            raise CheckpointError(f"{self.path}: the tensors view {self.viewed} elements of {self.stored} stored, "
                                  f"more than {MAX_VIEW_FACTOR} times over")
        return torch.as_strided(storage, size, stride, offset)


def _natural(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class _Unpickler(pickle._Unpickler):
    """The pure-Python unpickler, so that BUILD can be restricted too (the C one calls
    __setstate__ on whatever object it is given)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, reader):
        super().__init__(file, encoding="utf-8")
        self.reader = reader

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self.reader.rebuild_tensor
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if module == "torch" and name in STORAGES:
            return _StorageType(name)
        raise CheckpointError(f"{self.reader.path}: data.pkl names the global {module:.60}.{name:.60}: only tensors "
                              "and OrderedDict are allowed in a state dict (refused without running it)")

    def persistent_load(self, pid):
        return self.reader.storage(pid)

    def load_build(self):
        state = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not collections.OrderedDict or not isinstance(state, dict):
            raise CheckpointError(f"{self.reader.path}: data.pkl sets the state of a {type(target).__name__}; only "
                                  "a state dict's OrderedDict may have one")
        # The state is the state dict's _metadata (module versions), which the converters do not need.

    dispatch[pickle.BUILD[0]] = load_build
