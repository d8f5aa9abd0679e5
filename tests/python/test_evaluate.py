"""models/evaluation/evaluate.py plumbing: a stand-in CLI (a small Python script) checks reading .gz and
plain files, --limit, --out, --json, --extra-cli-args, exit status 3 handling, errors, and
repository-relative paths from another directory; one test runs the real attnscope-cli on a
golden test model when it has been built (tests/run.sh builds it first)."""

import gzip
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EVALUATE = REPO / "models" / "evaluation" / "evaluate.py"
REAL_CLI = REPO / "build" / "native" / "attnscope-cli"
TINY_MODEL = "tests/golden/tiny_post_sin.safetensors"  # repo-relative on purpose

# Echoes each input line as its "translation"; a line containing FAIL is a failure (empty
# output line, error on stderr, exit status 3), like attnscope-cli. Writes its argv to
# $FAKE_ARGV_OUT. $FAKE_EXIT forces an exit status.
FAKE_CLI = textwrap.dedent("""\
    import json, os, sys
    argv = sys.argv[1:]
    if os.environ.get("FAKE_ARGV_OUT"):
        with open(os.environ["FAKE_ARGV_OUT"], "w") as f:
            json.dump(argv, f)
    if os.environ.get("FAKE_EXIT"):
        print("attnscope-cli: error: cannot read model", file=sys.stderr)
        sys.exit(int(os.environ["FAKE_EXIT"]))
    assert argv[0] == "translate" and argv[1] == "--model" and argv[3] == "--input"
    ok = True
    with open(argv[4], encoding="utf-8") as f:
        for line in f.read().split("\\n")[:-1]:
            if "FAIL" in line:
                print("attnscope-cli: error: cannot (sentence: '%s')" % line, file=sys.stderr)
                print("")
                ok = False
            else:
                if "zz" in line:
                    print("attnscope-cli: warning: unknown words: zz", file=sys.stderr)
                print(line)
    sys.exit(0 if ok else 3)
""")


class EvaluateWithFakeCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.cli = self.dir / "fake-cli"
        self.cli.write_text(f"#!{sys.executable}\n" + FAKE_CLI)
        self.cli.chmod(0o755)
        self.src_lines = ["a man is walking .", "FAIL here", "two dogs zz play in the snow .",
                          "a woman reads a book ."]
        self.src = self.dir / "src.en.gz"
        with gzip.open(self.src, "wt", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in self.src_lines))
        self.ref = self.dir / "ref.de"  # plain text, same lines: echo gives BLEU 100 if no FAIL
        self.ref.write_text("".join(l.replace("FAIL", "fine") + "\n" for l in self.src_lines),
                            encoding="utf-8")

    def tearDown(self):
        self.tmp.cleanup()

    def run_eval(self, *extra, env=None, cwd=None):
        cmd = [sys.executable, str(EVALUATE), "--model", TINY_MODEL, "--src", str(self.src),
               "--ref", str(self.ref), "--cli", str(self.cli), *extra]
        return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd or self.dir,
                              env={**os.environ, **(env or {})})

    def test_json_counts_failures_and_passes_extra_args(self):
        argv_file = self.dir / "argv.json"
        out = self.dir / "hyps.txt"
        p = self.run_eval("--json", "--out", str(out), "--extra-cli-args", "--max-steps 7",
                          env={"FAKE_ARGV_OUT": str(argv_file)})
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual(r["sentences"], 4)
        self.assertEqual(r["failed"], 1)
        self.assertEqual(r["empty_hypotheses"], 1)
        self.assertEqual(r["unknown_word_warnings"], 1)
        self.assertEqual(r["cli_exit_status"], 3)
        self.assertEqual(r["hyp_len"], 5 + 0 + 8 + 6)
        self.assertIn("1 of 4 sentences could not be translated", p.stderr)
        self.assertTrue(r["formatted"].startswith("BLEU = "))
        self.assertEqual(r["signature"], "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp")
        self.assertEqual(r["signature_lowercase"], "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp")
        self.assertTrue(r["formatted_lowercase"].startswith("BLEU = "))
        argv = json.loads(argv_file.read_text())
        self.assertEqual(argv[-2:], ["--max-steps", "7"])
        self.assertEqual(Path(argv[2]), REPO / TINY_MODEL)  # resolved from the repo root
        self.assertEqual(out.read_text(encoding="utf-8").split("\n"),
                         [self.src_lines[0], "", self.src_lines[2], self.src_lines[3], ""])

    def test_text_output_and_limit(self):
        p = self.run_eval("--limit", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertTrue(lines[0].startswith("BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000"),
                        lines[0])
        self.assertIn("sentences: 1  failed: 0", p.stdout)
        self.assertIn("lowercase: BLEU = 100.00 ", p.stdout)
        self.assertIn("(nrefs:1|case:lc|eff:no|tok:13a|smooth:exp)", p.stdout)
        self.assertIn("sentences/s", p.stdout)
        self.assertEqual(p.stderr, "")

    def test_cli_error_status_is_an_error(self):
        p = self.run_eval(env={"FAKE_EXIT": "2"})
        self.assertEqual(p.returncode, 1)
        self.assertIn("exited with status 2", p.stderr)
        self.assertIn("cannot read model", p.stderr)

    def test_missing_cli_says_how_to_build(self):
        p = self.run_eval("--cli", str(self.dir / "nowhere" / "attnscope-cli"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("cmake -S . -B build/native && cmake --build build/native -j", p.stderr)

    def test_misaligned_reference_is_an_error(self):
        self.ref.write_text("only one line\n", encoding="utf-8")
        p = self.run_eval()
        self.assertEqual(p.returncode, 1)
        self.assertIn("has 1 lines", p.stderr)

    def test_json_flag_not_passed_through(self):
        p = self.run_eval("--extra-cli-args=--json")
        self.assertEqual(p.returncode, 1)
        self.assertIn("--json cannot be passed", p.stderr)


@unittest.skipUnless(REAL_CLI.exists(), "attnscope-cli not built (cmake --build build/native)")
class EvaluateWithRealCli(unittest.TestCase):
    def test_tiny_model_from_another_directory(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / "src.txt").write_text("i can eat apple\n\n" + "apple " * 40 + "\n",
                                       encoding="utf-8")
            (d / "ref.txt").write_text("ich esse brot\nwasser\nbrot\n", encoding="utf-8")
            # default --cli and a repo-relative --model, run from a directory outside the repo
            p = subprocess.run([sys.executable, str(EVALUATE), "--model", TINY_MODEL,
                                "--src", "src.txt", "--ref", "ref.txt", "--json"],
                               capture_output=True, text=True, cwd=d)
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual(r["sentences"], 3)
        self.assertEqual(r["failed"], 2)  # the empty line and the too-long one
        self.assertEqual(r["cli_exit_status"], 3)
        self.assertGreater(r["hyp_len"], 0)
        self.assertEqual(Path(r["cli"]), REAL_CLI)


if __name__ == "__main__":
    unittest.main()
