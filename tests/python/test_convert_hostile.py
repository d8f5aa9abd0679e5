"""models/convert/convert_hf.py against hostile and absurd Hugging Face snapshots: each is refused
with one line, "convert_hf.py: <file>: <field>: <why>", exit status 2, no output file, nothing run
from the snapshot, and bounded memory.

The converter needs PyTorch, so it runs in /usr/bin/python3 (Debian's python3-torch 1.13, the
version whose torch.load(weights_only=True) runs TorchScript archives); without it these tests are
skipped, loudly. The engine checks (a converted file the engine refuses) need build/native/
attnscope-cli, which tests/run.sh builds first."""

import json
import os
import pickle
import shutil
import struct
import subprocess
import tempfile
import textwrap
import unittest
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONVERT = REPO / "models" / "convert" / "convert_hf.py"
DATA = REPO / "tests" / "data" / "hf"
CLI = REPO / "build" / "native" / "attnscope-cli"
TORCH_PYTHON = "/usr/bin/python3"
# Importing torch alone takes about 300 MB; reading any of the absurd files whole would take GBs.
MAX_RSS = 1 << 30


def torch_missing():
    try:
        return subprocess.run([TORCH_PYTHON, "-c", "import torch"], capture_output=True).returncode != 0
    except OSError:
        return True


NO_TORCH = torch_missing()
NO_TORCH_WHY = f"SKIPPED: {TORCH_PYTHON} cannot import torch (apt-get install python3-torch)"


def run_torch(script, *args, cwd=None):
    """Runs `script` (Python source) in the torch interpreter; returns its stdout. From a file:
    torch.jit.script reads the source of what it compiles."""
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(textwrap.dedent(script))
        f.flush()
        run = subprocess.run([TORCH_PYTHON, f.name, *map(str, args)], capture_output=True, text=True, cwd=cwd)
    if run.returncode != 0:
        raise RuntimeError(f"helper script failed: {run.stderr}")
    return run.stdout


def convert(folder, out, env=None):
    """(exit status, stdout, stderr, peak resident bytes) of convert_hf.py on `folder`."""
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        p = subprocess.Popen([TORCH_PYTHON, str(CONVERT), str(folder), str(out)], stdout=so, stderr=se,
                             env=dict(os.environ, **(env or {})))
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        so.seek(0)
        se.seek(0)
        return p.returncode, so.read().decode(errors="replace"), se.read().decode(errors="replace"), \
            usage.ru_maxrss * 1024


# ----------------------------------------------------------------------------- safetensors by hand

def read_safetensors(path):
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + n]), data[8 + n:]


def write_safetensors(path, header, body):
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + body)


def zeros_safetensors(path, shapes):
    """A safetensors file of F32 zeros, one tensor per `shapes` entry."""
    header, offset = {}, 0
    for name, shape in shapes.items():
        size = 4
        for d in shape:
            size *= d
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    write_safetensors(path, header, bytes(offset))


def bytes_to_unicode():
    """GPT-2's byte -> printable character table (the byte-level BPE's alphabet)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = [], 0
    for b in range(256):
        if b in keep:
            chars.append(chr(b))
        else:
            chars.append(chr(256 + extra))
            extra += 1
    return chars


def gpt2_snapshot(folder, merges=("h e", "l l", "he ll"), n_layer=1, d=8, heads=2, positions=16):
    """A small GPT-2 snapshot the engine loads: the 256 byte pieces, a few merges, zero weights."""
    os.makedirs(folder)
    pieces = bytes_to_unicode() + [m.replace(" ", "") for m in merges] + ["<|endoftext|>"]
    Path(folder, "vocab.json").write_text(json.dumps({p: i for i, p in enumerate(pieces)}))
    Path(folder, "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n")
    Path(folder, "config.json").write_text(json.dumps({
        "model_type": "gpt2", "n_embd": d, "n_head": heads, "n_layer": n_layer, "n_positions": positions,
        "vocab_size": len(pieces), "bos_token_id": len(pieces) - 1, "eos_token_id": len(pieces) - 1}))
    shapes = {"wte.weight": [len(pieces), d], "wpe.weight": [positions, d], "ln_f.weight": [d], "ln_f.bias": [d]}
    for n in range(n_layer):
        shapes.update({f"h.{n}.ln_1.weight": [d], f"h.{n}.ln_1.bias": [d], f"h.{n}.ln_2.weight": [d],
                       f"h.{n}.ln_2.bias": [d], f"h.{n}.attn.c_attn.weight": [d, 3 * d],
                       f"h.{n}.attn.c_attn.bias": [3 * d], f"h.{n}.attn.c_proj.weight": [d, d],
                       f"h.{n}.attn.c_proj.bias": [d], f"h.{n}.mlp.c_fc.weight": [d, 4 * d],
                       f"h.{n}.mlp.c_fc.bias": [4 * d], f"h.{n}.mlp.c_proj.weight": [4 * d, d],
                       f"h.{n}.mlp.c_proj.bias": [d]})
    zeros_safetensors(Path(folder, "model.safetensors"), shapes)
    return folder


def edit_json(path, **fields):
    value = json.loads(Path(path).read_text())
    value.update(fields)
    Path(path).write_text(json.dumps(value))


class Snapshots(unittest.TestCase):
    """Each test works on copies of the committed snapshots in a temporary folder."""

    def setUp(self):
        if NO_TORCH:
            self.skipTest(NO_TORCH_WHY)
        self.tmp = Path(tempfile.mkdtemp(prefix="convert-hostile-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.out = self.tmp / "out.safetensors"

    def copy(self, name, dest=None):
        folder = self.tmp / (dest or name)
        shutil.copytree(DATA / name, folder)
        return folder

    def refused(self, folder, file, words, env=None):
        """Asserts the one-line refusal naming `file` (a path) and each of `words`; returns stderr."""
        status, stdout, stderr, rss = convert(folder, self.out, env)
        lines = stderr.strip().splitlines()
        self.assertEqual(status, 2, f"exit status {status}; stderr: {stderr[-2000:]}")
        self.assertEqual(len(lines), 1, f"expected one line on stderr, got: {stderr[-2000:]}")
        self.assertTrue(lines[0].startswith(f"convert_hf.py: {file}: "), lines[0])
        for w in words:
            self.assertIn(w, lines[0])
        self.assertFalse(self.out.exists(), "a refused snapshot must leave no output file")
        self.assertEqual([p.name for p in self.out.parent.iterdir() if ".partial" in p.name], [])
        self.assertLess(rss, MAX_RSS, f"peak memory {rss / 2**20:.0f} MiB")
        return stdout + stderr


class HostileCheckpoints(Snapshots):
    """pytorch_model.bin is read by the converter's own restricted reader: nothing in it runs."""

    def setUp(self):
        super().setUp()
        self.marker = self.tmp / "MARKER"
        self.folder = self.copy("bert-base-uncased-tiny-gamma-beta")
        self.bin = self.folder / "pytorch_model.bin"

    def hostile_pickle(self):
        class RunsACommand:
            def __reduce__(s):
                return os.system, (f"echo pwned > {self.marker}",)
        return pickle.dumps({"bert.embeddings.word_embeddings.weight": RunsACommand()}, protocol=2)

    def test_bare_pickle_with_reduce_is_refused_and_runs_nothing(self):
        self.bin.write_bytes(self.hostile_pickle())
        self.refused(self.folder, self.bin, ["legacy", "pickle"])
        self.assertFalse(self.marker.exists())

    def test_zip_whose_data_pkl_runs_a_command_is_refused_and_runs_nothing(self):
        with zipfile.ZipFile(self.bin, "w") as z:
            z.writestr("archive/data.pkl", self.hostile_pickle())
            z.writestr("archive/version", "3\n")
        self.refused(self.folder, self.bin, ["global", "system"])
        self.assertFalse(self.marker.exists())

    def test_torchscript_archive_with_setstate_is_refused_and_runs_nothing(self):
        # TorchScript has no file I/O: the archive's __setstate__ prints a marker, which
        # torch.load(weights_only=True) on torch 1.13 runs (CVE-2025-32434).
        run_torch("""
            import sys, torch
            class M(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = torch.nn.Parameter(torch.zeros(2))
                @torch.jit.export
                def __getstate__(self):
                    return (self.w, self.training)
                @torch.jit.export
                def __setstate__(self, state: tuple[torch.Tensor, bool]):
                    print("SETSTATE-RAN")
                    self.w = state[0]
                    self.training = state[1]
                def forward(self, x):
                    return x + self.w
            torch.jit.save(torch.jit.script(M()), sys.argv[1])
        """, self.bin)
        with zipfile.ZipFile(self.bin) as z:
            self.assertTrue(any(n.endswith("constants.pkl") for n in z.namelist()), "not a TorchScript archive")
        output = self.refused(self.folder, self.bin, ["TorchScript"])
        self.assertNotIn("SETSTATE-RAN", output)

    def test_legacy_checkpoint_is_refused(self):
        run_torch("""
            import sys, torch
            torch.save({"w": torch.zeros(3)}, sys.argv[1], _use_new_zipfile_serialization=False)
        """, self.bin)
        self.refused(self.folder, self.bin, ["legacy"])

    def test_storage_record_of_the_wrong_size_is_refused(self):
        with zipfile.ZipFile(self.bin) as z:
            entries = {i.filename: z.read(i) for i in z.infolist()}
        name = next(n for n in entries if n.endswith("/data/0"))
        entries[name] = entries[name][:-4]
        with zipfile.ZipFile(self.bin, "w") as z:
            for n, data in entries.items():
                z.writestr(n, data)
        self.refused(self.folder, self.bin, ["storage '0'", "bytes"])

    def test_committed_checkpoint_reads_as_torch_load_reads_it(self):
        same = run_torch("""
            import sys, torch
            sys.path.insert(0, "models/convert")
            import torch_checkpoint
            ours = torch_checkpoint.read_state_dict(sys.argv[1], 1 << 30)
            theirs = torch.load(sys.argv[1], weights_only=True)  # a committed, trusted file
            print(ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k])
                  and ours[k].dtype == theirs[k].dtype for k in theirs))
        """, DATA / "bert-base-uncased-tiny-gamma-beta" / "pytorch_model.bin", cwd=REPO)
        self.assertEqual(same.strip(), "True")


class AbsurdSnapshots(Snapshots):
    """Config numbers, nesting, shapes and sizes far beyond the files: one line, exit 2, bounded memory."""

    def test_gpt2_n_layer_1e9(self):
        folder = gpt2_snapshot(self.tmp / "gpt2")
        edit_json(folder / "config.json", n_layer=10**9)
        self.refused(folder, folder / "config.json", ["'n_layer'", "1000000000", "holds 1"])

    def test_marian_encoder_layers_1e9(self):
        folder = self.copy("opus-mt-en-de-tiny")
        edit_json(folder / "config.json", encoder_layers=10**9)
        self.refused(folder, folder / "config.json", ["'encoder_layers'", "1000000000"])

    def test_marian_max_position_embeddings_1e9(self):
        folder = self.copy("opus-mt-en-de-tiny")
        edit_json(folder / "config.json", max_position_embeddings=10**9)
        self.refused(folder, folder / "config.json", ["'max_position_embeddings'", "bytes"])

    def test_bert_hidden_size_2_to_the_30(self):
        folder = self.copy("bert-base-uncased-tiny")
        edit_json(folder / "config.json", hidden_size=2**30, num_attention_heads=1)
        self.refused(folder, folder / "config.json", ["'hidden_size'", str(2**30)])

    def test_deep_json_in_config_vocab_and_tokenizer(self):
        deep = "[" * 100000 + "]" * 100000
        for name, file, edit in (("bert-base-uncased-tiny", "config.json", lambda t: t[:-1] + ', "x": ' + deep + "}"),
                                 ("opus-mt-en-de-tiny", "vocab.json", lambda t: t[:-1] + ', "x": ' + deep + "}"),
                                 ("bert-base-uncased-tiny", "tokenizer.json", lambda t: deep)):
            with self.subTest(file=file):
                folder = self.copy(name, f"{name}-{file}")
                path = folder / file
                path.write_text(edit(path.read_text().rstrip()))
                self.refused(folder, path, ["nesting", "more than 256"])

    def test_negative_shape_in_safetensors(self):
        folder = self.copy("bert-base-uncased-tiny")
        path = folder / "model.safetensors"
        header, body = read_safetensors(path)
        name = "bert.embeddings.LayerNorm.bias" if "bert.embeddings.LayerNorm.bias" in header else sorted(header)[1]
        header[name]["shape"] = [-1] + header[name]["shape"]
        write_safetensors(path, header, body)
        self.refused(folder, path, [f"tensor '{name}'", "shape", "negative"])

    def test_20_gib_sparse_files_are_not_read(self):
        for name, file in (("bert-base-uncased-tiny", "model.safetensors"), ("bert-base-uncased-tiny", "vocab.txt"),
                           ("bert-base-uncased-tiny-gamma-beta", "pytorch_model.bin"),
                           ("opus-mt-en-de-tiny", "source.spm")):
            with self.subTest(file=file):
                folder = self.copy(name, f"{name}-{file}")
                os.truncate(folder / file, 20 << 30)  # sparse: no disk is used
                self.refused(folder, folder / file, ["size", str(20 << 30)])

    def test_overlapping_safetensors_offsets(self):
        folder = self.copy("bert-base-uncased-tiny")
        path = folder / "model.safetensors"
        header, body = read_safetensors(path)
        a, b = [n for n in sorted(header) if n != "__metadata__" and header[n]["shape"] == [64]][:2]
        header[b]["data_offsets"] = header[a]["data_offsets"]
        write_safetensors(path, header, body)
        self.refused(folder, path, ["overlap", a, b])

    def test_trailing_bytes_after_the_safetensors_data(self):
        folder = self.copy("bert-base-uncased-tiny")
        path = folder / "model.safetensors"
        path.write_bytes(path.read_bytes() + bytes(64))
        self.refused(folder, path, ["trailing"])


class Symlinks(Snapshots):
    def test_a_link_out_of_the_folder_is_refused_and_not_copied(self):
        folder = self.copy("opus-mt-en-de-tiny")
        secret = self.tmp / "secret.txt"
        secret.write_text("the secret of the machine\n" * 100)
        os.remove(folder / "source.spm")
        os.symlink(secret, folder / "source.spm")
        self.refused(folder, folder / "source.spm", ["symbolic link", "outside the snapshot folder"])

    def test_hugging_face_cache_layout_converts(self):
        # <repo>/snapshots/<rev>/<file> -> ../../blobs/<hash>, as huggingface_hub stores a download.
        repo = self.tmp / "models--opus-mt-en-de-tiny"
        folder, blobs = repo / "snapshots" / "0123abc", repo / "blobs"
        folder.mkdir(parents=True)
        blobs.mkdir()
        for i, f in enumerate(sorted(os.listdir(DATA / "opus-mt-en-de-tiny"))):
            shutil.copy(DATA / "opus-mt-en-de-tiny" / f, blobs / f"blob{i}")
            os.symlink(f"../../blobs/blob{i}", folder / f)
        status, _, stderr, _ = convert(folder, self.out)
        self.assertEqual(status, 0, stderr)
        self.assertTrue(self.out.exists())


@unittest.skipUnless(CLI.is_file(), f"SKIPPED: {CLI} is not built (cmake --build build/native)")
class EngineCheck(Snapshots):
    """A converted file the engine would refuse is never written: the engine's loader is asked."""

    def test_zero_attention_heads(self):
        folder = self.copy("opus-mt-en-de-tiny")
        edit_json(folder / "config.json", encoder_attention_heads=0, decoder_attention_heads=0)
        self.refused(folder, folder, ["engine", "n_heads"])

    def test_merge_whose_parts_are_not_in_the_vocabulary(self):
        folder = gpt2_snapshot(self.tmp / "gpt2", merges=("h e", "he ll"))  # "ll" is no piece
        self.refused(folder, folder, ["engine", "ll"])

    def test_a_sound_snapshot_converts(self):
        folder = gpt2_snapshot(self.tmp / "gpt2")
        status, _, stderr, _ = convert(folder, self.out)
        self.assertEqual(status, 0, stderr)
        self.assertEqual(stderr, "")
        self.assertEqual(oct(self.out.stat().st_mode & 0o777), oct(0o666 & ~current_umask()))


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


if __name__ == "__main__":
    unittest.main()
