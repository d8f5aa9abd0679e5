"""BLEU by source length: the pure-Python binning (models/evaluation/bleu_by_length.py) on its own,
its goldens up to date, and the engine's figures (`attnscope-cli bleu-by-length`, when built)
against it: on given translations (--hyps) and on the translations the engine made itself
(--translations), on committed data only."""

import hashlib
import json
import math
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "models" / "evaluation"))
sys.path.insert(0, str(REPO / "models" / "goldens"))
from bleu import corpus_bleu  # noqa: E402
from bleu_by_length import bleu_by_length, read_lines  # noqa: E402
import make_bleu_by_length_goldens  # noqa: E402

CLI = REPO / "build" / "native" / "attnscope-cli"
VAL = REPO / "tests" / "data" / "multi30k"
SRC, REF, HYP = VAL / "val.first40.en", VAL / "val.first40.de", VAL / "val.first40.hyp.de"
TOY = REPO / "tests" / "data" / "toy" / "eng_de.csv"
FROZEN_TOY = REPO / "tests" / "models" / "toy-en-de.frozen.safetensors"
MULTI30K = REPO / "models" / "multi30k-en-de.safetensors"


def assert_close(test, a, b, where="result"):
    """Counts, edges and nulls equal; floats within 1e-9 (the same double arithmetic in C++)."""
    if isinstance(b, dict):
        test.assertEqual(sorted(a), sorted(b), where)
        for k in b:
            assert_close(test, a[k], b[k], f"{where}.{k}")
    elif isinstance(b, list):
        test.assertEqual(len(a), len(b), where)
        for i, (x, y) in enumerate(zip(a, b)):
            assert_close(test, x, y, f"{where}[{i}]")
    elif isinstance(b, float):
        test.assertTrue(math.isfinite(a) and abs(a - b) <= 1e-9, f"{where}: {a!r} vs {b!r}")
    else:
        test.assertEqual(a, b, where)


class PythonBinning(unittest.TestCase):
    def test_bins_by_white_space_words_and_scores_each_with_corpus_bleu(self):
        sources = ["a b", "a b c", "one two three four five", "x\u00a0y z"]
        hyps = ["ein Hund läuft im Park .", "eine Katze", "zwei Hunde spielen im Schnee .", "drei"]
        refs = ["ein Hund rennt im Park .", "eine Katze schläft", "zwei Hunde spielen im Schnee .", "drei Vögel"]
        r = bleu_by_length(sources, hyps, refs, [2, 3])
        self.assertEqual([(b["minWords"], b["maxWords"], b["sentences"]) for b in r["bins"]],
                         [(1, 2, 1), (3, 3, 2), (4, None, 1)])
        self.assertEqual(r["bins"][1]["bleu"], corpus_bleu([hyps[1], hyps[3]], [[refs[1], refs[3]]])["score"])
        self.assertAlmostEqual(r["bins"][2]["bleu"], 100.0, places=9)
        self.assertEqual(r["total"]["bleu"], corpus_bleu(hyps, [refs])["score"])
        self.assertIsNone(bleu_by_length(["a"], ["b"], ["b"], [1, 5])["bins"][1]["bleu"])

    def test_bad_input_is_an_error(self):
        for edges in ([], [0], [8, 8], [12, 8]):
            with self.assertRaises(ValueError):
                bleu_by_length(["a"], ["a"], ["a"], edges)
        with self.assertRaises(ValueError):
            bleu_by_length(["a"], ["a"], [])
        with self.assertRaises(ValueError):
            bleu_by_length([], [], [])
        with self.assertRaisesRegex(ValueError, "source 2 has no words"):
            bleu_by_length(["a", " \u3000 "], ["a", "b"], ["a", "b"])

    def test_goldens_are_up_to_date(self):
        committed = json.loads((REPO / "tests" / "golden" / "bleu_by_length.json").read_text(encoding="utf-8"))
        self.assertEqual(committed["cases"], json.loads(json.dumps(make_bleu_by_length_goldens.cases())))


class ShippedFigures(unittest.TestCase):
    """models/analysis/bleu-by-length.json (the page's figure) belongs to the model files that ship."""

    def test_made_from_the_shipped_model_files(self):
        shipped = json.loads((REPO / "models" / "analysis" / "bleu-by-length.json").read_text(encoding="utf-8"))
        self.assertEqual([m["id"] for m in shipped["models"]],
                         ["multi30k-en-de", "multi30k-rnn-en-de", "multi30k-rnn-none-en-de"])
        for m in shipped["models"]:
            weights = (REPO / "models" / f"{m['id']}.safetensors").read_bytes()
            self.assertEqual(m["sha256"], hashlib.sha256(weights).hexdigest(),
                             f"{m['id']} changed: re-run python3 models/evaluation/bleu_by_length_models.py")
            self.assertEqual([b["sentences"] for b in m["bins"]], [b["sentences"] for b in shipped["models"][0]["bins"]])
            self.assertEqual(sum(b["sentences"] for b in m["bins"]), m["total"]["sentences"])


@unittest.skipUnless(CLI.exists(), "build/native/attnscope-cli is not built")
class EngineAgainstPython(unittest.TestCase):
    def cli(self, *args, ok=True):
        proc = subprocess.run([str(CLI), "bleu-by-length", *map(str, args)], capture_output=True, text=True)
        if ok:
            self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc

    def test_given_translations(self):
        for bins in ("8,12,16,20", "10,14", "9", "1,2,3,30"):
            engine = json.loads(self.cli("--hyps", HYP, "--input", SRC, "--refs", REF, "--bins", bins, "--json").stdout)
            edges = [int(e) for e in bins.split(",")]
            assert_close(self, engine, bleu_by_length(read_lines(SRC), read_lines(HYP), read_lines(REF), edges), bins)

    def test_the_engines_own_translations(self):
        with tempfile.TemporaryDirectory() as tmp:
            src, ref, out = Path(tmp) / "toy.en", Path(tmp) / "toy.de", Path(tmp) / "out.de"
            pairs = [line.split(",") for line in read_lines(TOY)]
            src.write_text("".join(p[0] + "\n" for p in pairs), encoding="utf-8")
            ref.write_text("".join(p[1] + "\n" for p in pairs), encoding="utf-8")
            for model, source, reference, options in [
                (FROZEN_TOY, src, ref, ["--beam", "3", "--bins", "3,4"]),
                (MULTI30K, SRC, REF, ["--beam", "2", "--length-penalty", "1.4"]),
            ]:
                engine = json.loads(self.cli("--model", model, "--input", source, "--refs", reference, *options,
                                             "--translations", out, "--json").stdout)
                translations = read_lines(out)
                self.assertEqual(len(translations), len(read_lines(source)))
                edges = [int(e) for e in options[-1].split(",")] if "--bins" in options else [8, 12, 16, 20]
                assert_close(self, engine, bleu_by_length(read_lines(source), translations, read_lines(reference), edges),
                             model.name)

    def test_bad_input_exits_2_with_a_message(self):
        with tempfile.TemporaryDirectory() as tmp:
            empty = Path(tmp) / "empty.txt"
            empty.write_text("")
            short = Path(tmp) / "short.txt"
            short.write_text("eins\n")
            for args, message in [
                (["--hyps", HYP, "--input", SRC, "--refs", REF, "--bins", "8,4"], "increase"),
                (["--hyps", HYP, "--input", SRC, "--refs", REF, "--bins", "8,,12"], "--bins needs"),
                (["--hyps", HYP, "--input", SRC, "--refs", short], "40 sources"),
                (["--hyps", empty, "--input", empty, "--refs", empty], "at least one sentence"),
                (["--input", SRC, "--refs", REF], "--model FILE (to translate) or --hyps FILE"),
                (["--hyps", HYP, "--input", SRC], "needs --input and --refs"),
                (["--hyps", Path(tmp) / "missing.txt", "--input", SRC, "--refs", REF], "cannot open"),
            ]:
                proc = self.cli(*args, ok=False)
                self.assertEqual(proc.returncode, 2, args)
                self.assertIn(message, proc.stderr, args)


if __name__ == "__main__":
    unittest.main()
