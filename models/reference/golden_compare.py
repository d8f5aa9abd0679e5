"""How the self-checks compare what the reference computes now with the committed goldens.

The goldens were computed in float32 on one machine. The same code on another CPU (another BLAS,
another kernel, another summation order) gets numbers that differ in the last bits: a few 1e-6 on
logits of a few units, up to 5e-5 seen on attention and logits under another BLAS kernel. So a
number is checked against a golden to GOLDEN_TOL, the tolerance the engine's own golden tests use
(tests/native/test_support.h kTolerance) with an independent float32 implementation, and relative
to the golden where it is larger than 1 (a beam score of -13.4 carries float32's relative error,
not an absolute one); a real error (a wrong scale, mask or weight) is orders of magnitude larger.
Every --check of a committed golden compares through `differences`, so this is the one place the
rule lives; tests/run.sh runs the checks a second time under another OpenBLAS kernel to prove it.
Decisions are compared exactly: token ids, their order, which hypotheses finished, flags. The
decisions do not depend on differences of that size: the smallest gap between the best and the
second-best logit of a greedy golden is 2e-4, some 30 times what another BLAS changes, and
models/goldens/make_search_goldens.py keeps beam and sampling cases only where every decision
has a margin (BEAM_EPS, U_EPS, LOGIT_EPS).
"""

import math

GOLDEN_TOL = 1e-4


def close(got, want, tol=GOLDEN_TOL):
    """|got - want| <= tol * max(1, |want|); equal infinities (a masked logit) agree, and a NaN
    never does."""
    if got == want:
        return True
    return math.isfinite(got) and math.isfinite(want) and abs(got - want) <= tol * max(1.0, abs(want))


def differences(got, want, tol=GOLDEN_TOL, where=""):
    """Where two JSON-like values (dicts, lists, numbers, strings, booleans) differ: floats by more
    than `close` allows, anything else (ints, booleans, strings, keys, lengths) at all. [] when
    they agree."""
    if isinstance(want, bool) or isinstance(got, bool):
        return [] if got is want else [f"{where or 'value'}: {got!r} != {want!r}"]
    if isinstance(want, float) or isinstance(got, float):
        if isinstance(got, (int, float)) and isinstance(want, (int, float)) and close(got, want, tol):
            return []
        return [f"{where or 'value'}: {got!r} != {want!r} (tolerance {tol:g})"]
    if isinstance(want, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            return [f"{where or 'value'}: keys {sorted(got) if isinstance(got, dict) else got!r} != {sorted(want)}"]
        return [d for k in want for d in differences(got[k], want[k], tol, f"{where}.{k}" if where else k)]
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return [f"{where or 'value'}: {got!r} != {want!r}"]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in differences(g, w, tol, f"{where}[{i}]")]
    return [] if got == want else [f"{where or 'value'}: {got!r} != {want!r}"]
