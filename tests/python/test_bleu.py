"""models/evaluation/bleu.py against figures published by sacreBLEU (and by tools that call it).

Every expected number below is copied from a published source, named above its test;
none was produced by models/evaluation/bleu.py. Sources:
- SB-README: sacreBLEU's README, the Python API example (three system sentences, two
  reference streams): "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944
  hyp_len = 17 ref_len = 18)", signature nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp.
- SB-TEST-BLEU: sacreBLEU's test/test_bleu.py (2.x): corpus BLEU with default and changed
  settings, raw_corpus_bleu (= tokenize "none", floor smoothing, effective order),
  sufficient statistics, compute_bleu from statistics, BLEU by maximum n-gram order.
- SB-TEST-SENT: sacreBLEU's test/test_sentence_bleu.py (2.x): one Romanian sentence (from
  sacreBLEU's tracker) under each smoothing and tokenizer, effective order on; and its
  zero-BLEU example.
- HF-EVAL: Hugging Face evaluate's metrics/sacrebleu/sacrebleu.py docstring examples
  (sacrebleu.corpus_bleu with its defaults; references given per prediction there).
- FLEXEVAL: flexeval's test of sacreBLEU's 13a tokenizer ("I'm a student.").
sacreBLEU itself has no unit test of the 13a tokenizer's output; the remaining tokenizer
cases are written by hand from the four mteval-v13a rules (quoted in models/evaluation/bleu.py) and say
which rule each one exercises.
"""

import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "models" / "evaluation"))

from bleu import compute_bleu, corpus_bleu, format_bleu, signature, tokenize_13a  # noqa: E402

# SB-README / SB-TEST-BLEU
REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]

EPSILON = 1e-8  # sacreBLEU's own tolerance in test_bleu.py


def raw_corpus_bleu(hyps, refs, smooth_value=None):
    """sacreBLEU's compat.raw_corpus_bleu: floor smoothing (default value 0.1), tokenizer
    "none", effective order."""
    return corpus_bleu(hyps, refs, tokenize="none", smooth_method="floor",
                       smooth_value=smooth_value, effective_order=True)


class PublishedCorpusBleu(unittest.TestCase):
    def test_readme_line(self):  # SB-README
        result = corpus_bleu(HYPS, REFS)
        self.assertEqual(
            format_bleu(result),
            "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)")
        self.assertEqual(signature(result), "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp")

    def test_default_settings(self):  # SB-TEST-BLEU test_corpus_bleu
        self.assertLess(abs(corpus_bleu(HYPS, REFS)["score"] - 48.530827), EPSILON)
        self.assertLess(abs(corpus_bleu(HYPS, REFS, tokenize="13a")["score"] - 48.530827),
                        EPSILON)

    def test_tokenize_none(self):  # SB-TEST-BLEU: the 13a tokenization changes the score
        self.assertLess(abs(corpus_bleu(HYPS, REFS, tokenize="none")["score"] - 49.1919566),
                        EPSILON)

    def test_smooth_none(self):  # SB-TEST-BLEU
        result = corpus_bleu(HYPS, REFS, smooth_method="none")
        self.assertLess(abs(result["score"] - 48.530827), EPSILON)

    def test_empty_hypotheses_are_kept(self):  # SB-TEST-BLEU: ('', '', '') -> 0.0
        result = corpus_bleu(["", "", ""], REFS)
        self.assertEqual(result["score"], 0.0)
        self.assertEqual(result["hyp_len"], 0)

    def test_max_ngram_order(self):  # SB-TEST-BLEU test_max_ngram_order
        for order, expected in [(1, "77.65"), (2, "60.50"), (3, "53.93"), (4, "48.53"),
                                (5, "46.14"), (6, "43.28")]:
            with self.subTest(order=order):
                score = corpus_bleu(HYPS, REFS, max_ngram_order=order)["score"]
                self.assertEqual(f"{score:.2f}", expected)

    def test_hf_evaluate_examples(self):  # HF-EVAL, references regrouped into streams
        self.assertEqual(round(corpus_bleu(
            ["hello there general kenobi", "foo bar foobar"],
            [["hello there general kenobi", "foo bar foobar"],
             ["hello there !", "foo bar foobar"]])["score"], 1), 100.0)
        # the second sentence's references have 3 and 2 tokens: the closest length counts
        self.assertEqual(round(corpus_bleu(
            ["hello there general kenobi", "on our way to ankh morpork"],
            [["hello there general kenobi", "goodbye ankh morpork"],
             ["hello there !", "ankh morpork"]])["score"], 1), 39.8)


class PublishedRawBleu(unittest.TestCase):
    """SB-TEST-BLEU cases run through raw_corpus_bleu (floor 0.01 unless said)."""

    def test_raw_bleu(self):
        cases = [
            (["this is a test", "another test"], [["ref1", "ref2"]], 0.0),  # sacreBLEU: no match is 0
            (["this is a test"], [["this is a test"]], 1.0),
            (["this is a fest"], [["this is a test"]], 0.223606797749979),
        ]
        for hyps, refs, expected in cases:
            with self.subTest(hyps=hyps):
                score = raw_corpus_bleu(hyps, refs, 0.01)["score"] / 100
                self.assertLess(abs(score - expected), EPSILON)

    def test_effective_order(self):
        cases = [
            (["test"], [["a test"]], 0.3678794411714425),
            (["a test"], [["a test"]], 1.0),
            (["a little test"], [["a test"]], 0.03218297948685433),
        ]
        for hyps, refs, expected in cases:
            with self.subTest(hyps=hyps):
                score = raw_corpus_bleu(hyps, refs, 0.01)["score"] / 100
                self.assertLess(abs(score - expected), EPSILON)

    def test_statistics(self):
        result = raw_corpus_bleu(["am I am a character sequence"],
                                 [["I am a symbol string sequence a a"]], 0.01)
        self.assertEqual(result["counts"], [4, 2, 1, 0])
        self.assertEqual(result["totals"], [6, 5, 4, 3])

    def test_offset(self):
        hyps, refs = ["am I am a character sequence"], [["I am a symbol string sequence a a"]]
        self.assertLess(abs(raw_corpus_bleu(hyps, refs, 0.0)["score"] / 100 - 0), EPSILON)
        # None: BLEU's internal floor default of 0.1
        self.assertLess(abs(raw_corpus_bleu(hyps, refs, None)["score"] / 100 - 0.1555722182),
                        EPSILON)


class PublishedComputeBleu(unittest.TestCase):
    def test_scoring(self):  # SB-TEST-BLEU test_scoring (sacreBLEU's compute_bleu default: none)
        score = compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11, smooth_method="none")["score"]
        self.assertLess(abs(score / 100 - 0.8375922397), EPSILON)

    def test_degenerate_statistics(self):  # SB-TEST-BLEU test_degenerate_statistics
        cases = [
            (([0, 0, 0, 0], [4, 4, 2, 1], 0, 1), 0.0),
            (([0, 0, 0, 0], [10, 11, 12, 0], 14, 10), 0.0),
            (([0, 0, 0, 0], [0, 0, 0, 0], 0, 0), 0.0),
            (([6, 5, 4, 0], [6, 5, 4, 3], 6, 6), 0.0),
            (([0, 0, 0, 0], [0, 0, 0, 0], 0, 0), 0.1),
            (([0, 0, 0, 0], [0, 0, 0, 0], 1, 5), 0.01),
        ]
        for (correct, total, sys_len, ref_len), offset in cases:
            with self.subTest(correct=correct, total=total, offset=offset):
                score = compute_bleu(correct, total, sys_len, ref_len, smooth_method="floor",
                                     smooth_value=offset)["score"]
                self.assertEqual(score / 100, 0.0)


class PublishedSentenceBleu(unittest.TestCase):
    """SB-TEST-SENT: one segment, one reference, effective order on, tolerance 1e-3."""

    REF = "produc\u0163ia de zah\u0103r brut se exprim\u0103 \u00een zah\u0103r alb;"
    SYS = ("Produc\u021bia de zah\u0103r prim\u0103 va fi exprimat\u0103 \u00een ceea ce "
           "prive\u0219te zah\u0103rul alb;")

    def test_smoothing_and_tokenizers(self):
        cases = [
            ("exp", None, "13a", 8.493),
            ("none", None, "13a", 0.0),
            ("floor", None, "13a", 4.51688),
            ("floor", 0.1, "13a", 4.51688),
            ("floor", 0.5, "13a", 10.10),
            ("add-k", None, "13a", 14.882),
            ("add-k", 1, "13a", 14.882),
            ("add-k", 2, "13a", 21.389),
            ("exp", None, "none", 7.347),
        ]
        for smooth, value, tok, expected in cases:
            with self.subTest(smooth=smooth, value=value, tok=tok):
                score = corpus_bleu([self.SYS], [[self.REF]], tokenize=tok, smooth_method=smooth,
                                    smooth_value=value, effective_order=True)["score"]
                self.assertLess(abs(score - expected), 1e-3)

    def test_zero_bleu(self):  # sacreBLEU's zero-BLEU example: no match at all is 0 under every smoothing
        for smooth, value in [("exp", None), ("none", None), ("floor", None), ("floor", 0.1),
                              ("add-k", None), ("add-k", 1)]:
            with self.subTest(smooth=smooth, value=value):
                score = corpus_bleu(["this is a cat"], [["okay thanks"]], smooth_method=smooth,
                                    smooth_value=value, effective_order=True)["score"]
                self.assertLess(abs(score - 0.0), 1e-3)


class Tokenizer13a(unittest.TestCase):
    def test_flexeval_case(self):  # FLEXEVAL
        self.assertEqual(tokenize_13a("I'm a student.").split(), ["I'm", "a", "student", "."])

    def test_rules(self):
        cases = [
            # rule 1: ASCII symbols are split off; ' - . , are not in that class
            ("Hello, world!", "Hello , world !"),
            ("(a) [b] {c} $5 #1 @x 50% a/b a+b a=b a<b a;b a:b a?b a*b a|b a~b a^b a_b",
             "( a ) [ b ] { c } $ 5 # 1 @ x 50 % a / b a + b a = b a < b a ; b a : b "
             "a ? b a * b a | b a ~ b a ^ b a _ b"),
            ("a\\b a`b", "a \\ b a ` b"),
            ("It wasn't well-known", "It wasn't well-known"),
            # rule 1 is ASCII only: German and typographic quotes, dashes stay attached
            ("\u201eHallo\u201c \u2013 sagte sie", "\u201eHallo\u201c \u2013 sagte sie"),
            # rules 2 and 3: period and comma split unless between digits
            ("It costs 1,000.50 dollars.", "It costs 1,000.50 dollars ."),
            ("in 2019.", "in 2019 ."),
            ("1, 2 and 3.5", "1 , 2 and 3.5"),
            ("a,5 and 5,a", "a , 5 and 5 , a"),
            ("U.S.A.", "U . S . A ."),
            # rule 4: a dash after a digit
            ("pages 10-20", "pages 10 - 20"),
            ("ein 3-j\u00e4hriger Junge", "ein 3 - j\u00e4hriger Junge"),
            # language-independent part: <skipped>, -\n joins, \n, the four entities
            ("a <skipped> b", "a b"),
            ("exam-\nple\nline", "example line"),
            ("&quot;Hi&quot; &amp; bye", '" Hi " & bye'),
            ("&lt;b&gt;", "< b >"),
            ("&apos;x&apos;", "& apos ; x & apos ;"),  # only the four entities are unescaped
            # whitespace collapsed and trimmed
            ("  a \t b  ", "a b"),
            ("", ""),
        ]
        for line, expected in cases:
            with self.subTest(line=line):
                self.assertEqual(tokenize_13a(line), expected)


class EdgeCases(unittest.TestCase):
    def test_perfect_match_is_100(self):
        refs = ["A man in an orange hat, staring at something.", "Two dogs play in the snow."]
        result = corpus_bleu(list(refs), [refs])
        # exp(mean(log 100)) is 100.00000000000004 in floating point, in sacreBLEU as here
        self.assertAlmostEqual(result["score"], 100.0, places=9)
        self.assertEqual(result["bp"], 1.0)
        self.assertEqual(result["precisions"], [100.0] * 4)

    def test_empty_hypothesis_among_others(self):
        # the empty line adds 0 to hyp_len and its closest reference length to ref_len
        refs = ["the cat sat on the mat", "a b c d"]
        result = corpus_bleu(["the cat sat on the mat", ""], [refs])
        self.assertEqual((result["hyp_len"], result["ref_len"]), (6, 10))
        self.assertEqual(result["precisions"], [100.0] * 4)
        self.assertEqual(result["bp"], math.exp(1 - 10 / 6))
        self.assertEqual(corpus_bleu([""], [["a b c d"]])["score"], 0.0)

    def test_no_matching_higher_ngrams(self):
        # The SB-TEST-SENT sentence (8.493 published above): by hand, 13a gives the
        # hypothesis 14 tokens, the reference 10; matches de, zahar, in, alb, ';' and the
        # bigrams "de zahar", "alb ;"; no 3- or 4-gram. exp smoothing: 100/(2*12), 100/(4*11).
        result = corpus_bleu([PublishedSentenceBleu.SYS], [[PublishedSentenceBleu.REF]])
        self.assertEqual(result["counts"], [5, 2, 0, 0])
        self.assertEqual(result["totals"], [14, 13, 12, 11])
        self.assertEqual(result["precisions"][2:], [100 / 24, 100 / 44])
        self.assertEqual(result["bp"], 1.0)
        self.assertLess(abs(result["score"] - 8.493), 1e-3)

    def test_no_match_at_all(self):
        result = corpus_bleu(["x y z"], [["a b c"]])
        self.assertEqual(result["score"], 0.0)
        self.assertEqual(result["precisions"], [0.0] * 4)

    def test_case_sensitive(self):
        self.assertEqual(corpus_bleu(["The Dog"], [["the dog"]])["score"], 0.0)
        self.assertAlmostEqual(corpus_bleu(["The Dog ran far"], [["the dog ran far"]],
                                           lowercase=True)["score"], 100.0, places=9)

    def test_trailing_whitespace_and_crlf_ignored(self):
        self.assertAlmostEqual(corpus_bleu(["a b c d \r"], [["a b c d"]])["score"], 100.0,
                               places=9)

    def test_variable_number_of_references(self):
        # an empty reference is dropped for that segment (sacreBLEU: variable references)
        result = corpus_bleu(["a b c d", "e f g h"], [["a b c d", "e f g h"], ["", "x"]])
        self.assertAlmostEqual(result["score"], 100.0, places=9)
        self.assertEqual(result["nrefs"], "var")

    def test_errors(self):
        with self.assertRaises(ValueError):
            corpus_bleu(["a", "b"], [["a"]])           # lengths differ
        with self.assertRaises(ValueError):
            corpus_bleu(["a"], [[""]])                 # no non-empty reference
        with self.assertRaises(TypeError):
            corpus_bleu(["a"], ["a"])                  # a stream, not a list of streams
        with self.assertRaises(ValueError):
            corpus_bleu([], [[]])                      # nothing to score
        with self.assertRaises(ValueError):
            corpus_bleu(["a"], [["a"]], tokenize="intl")
        with self.assertRaises(ValueError):
            corpus_bleu(["a"], [["a"]], smooth_method="nope")


if __name__ == "__main__":
    unittest.main()
