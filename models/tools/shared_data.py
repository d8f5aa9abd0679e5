"""Where the scripts find the data the repository does not hold: Multi30k and the toy grammar.

Every script that reads them takes `--data DIR`, the folder that holds `multi30k/` (Multi30k
task 1: train, val and test_2016_flickr, `.en.gz` / `.de.gz`) and `toy/eng_de.csv`. Without
`--data`: $ATTNSCOPE_DATA (which the benchmarks in tests/bench read too), else `../shared/data`
beside the checkout. Standard library only, so the plain `python3` scripts can use it.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT.parent / "shared" / "data"
HELP = ("the data folder, holding multi30k/ and toy/ (default: $ATTNSCOPE_DATA, else ../shared/data "
        "beside the checkout)")


def add_option(parser):
    """Adds `--data DIR` to an argparse parser."""
    parser.add_argument("--data", metavar="DIR", type=Path, default=None, help=HELP)


def folder(data, *needed):
    """The data folder: `data` (the --data value, or None for the default), checked to hold every
    path of `needed` (relative to it). A missing one ends the script with a message that names the
    folder and the option."""
    env = os.environ.get("ATTNSCOPE_DATA")
    if data:
        base, source = Path(data), "--data"
    elif env:
        base, source = Path(env), "$ATTNSCOPE_DATA"
    else:
        base, source = DEFAULT, "the default, beside the checkout"
    missing = [p for p in needed if not (base / p).exists()]
    if missing:
        shown = os.path.relpath(base) if base == DEFAULT else str(base)
        raise SystemExit(
            f"the data folder {shown} ({source}) lacks {', '.join(missing)}; pass --data DIR, "
            "a folder holding multi30k/ (Multi30k task 1: train, val, test_2016_flickr as .en.gz / .de.gz) "
            "and toy/eng_de.csv")
    return base
