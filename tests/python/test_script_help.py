"""Every Python script under models/ parses its arguments before it does anything: `--help` prints
usage and exits 0, an unknown argument exits 2, and neither writes a file (in the repository, or
in the directory it was started from).

A script is a .py file with a `__main__` guard or a #! line. They run in /usr/bin/python3, which
has PyTorch (Debian's python3-torch); without it this test is skipped, loudly. Watched for writes:
the folders the scripts write to (WATCHED), so that edits elsewhere in a working tree while the
test runs are not taken for a script's."""

import os
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TORCH_PYTHON = "/usr/bin/python3"
SKIPPED_DIRS = {".git", "node_modules", "__pycache__"}
WATCHED = ["models", "tests/golden", "tests/data", "build", "src/text/unicode_tables.inc"]


def scripts():
    found = []
    for path in sorted((REPO / "models").rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if text.startswith("#!") or '__name__ == "__main__"' in text:
            found.append(path)
    return found


def tree_state():
    """{path: (mtime_ns, size)} of every file and folder WATCHED, CMake build trees left out (other
    builds may be writing there)."""
    state = {}
    for top in WATCHED:
        path = REPO / top
        if path.is_file():
            st = path.stat()
            state[str(path)] = (st.st_mtime_ns, st.st_size)
        else:
            state.update(folder_state(path))
    return state


def folder_state(root):
    state = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not os.path.isfile(os.path.join(folder, d, "CMakeCache.txt"))]
        for name in dirs + files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue
            state[path] = (st.st_mtime_ns, st.st_size) if name in files else None
    return state


def changes(before, after):
    return sorted(p for p in set(before) | set(after) if before.get(p, "absent") != after.get(p, "absent"))


def torch_missing():
    try:
        return subprocess.run([TORCH_PYTHON, "-c", "import torch"], capture_output=True).returncode != 0
    except OSError:
        return True


@unittest.skipIf(torch_missing(), f"SKIPPED: {TORCH_PYTHON} cannot import torch (apt-get install python3-torch)")
class ScriptArguments(unittest.TestCase):
    def test_there_are_scripts(self):
        names = {p.name for p in scripts()}
        self.assertIn("make_hf_checkpoints.py", names)
        self.assertIn("convert_hf.py", names)

    def run_script(self, script, arg):
        with tempfile.TemporaryDirectory() as cwd:
            before = tree_state()
            run = subprocess.run([TORCH_PYTHON, str(script), arg], cwd=cwd, capture_output=True, text=True,
                                 timeout=300)
            written = changes(before, tree_state()) + sorted(os.listdir(cwd))
        return run, written

    def test_help_prints_usage_and_writes_nothing(self):
        for script in scripts():
            with self.subTest(script=str(script.relative_to(REPO))):
                run, written = self.run_script(script, "--help")
                self.assertEqual(run.returncode, 0, run.stderr[-1000:])
                self.assertIn("usage:", run.stdout)
                self.assertEqual(written, [], "--help wrote files")

    def test_unknown_argument_exits_2_and_writes_nothing(self):
        for script in scripts():
            with self.subTest(script=str(script.relative_to(REPO))):
                run, written = self.run_script(script, "--no-such-option")
                self.assertEqual(run.returncode, 2, run.stderr[-1000:])
                self.assertIn("usage:", run.stderr)
                self.assertEqual(written, [], "an unknown argument wrote files")


if __name__ == "__main__":
    unittest.main()
