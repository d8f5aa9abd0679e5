#!/usr/bin/env bash
# The comparison that chose the Multi30k translators' small recipe: the 3+3 x 256 recipe against
# the small-model recipe (4+4 x 128, 4 heads, FFN 256, dropout 0.3, lr 5e-3, 2,000 warm-up steps,
# ~4k-token batches), both from scratch, en->de, one torch thread, the same CPU-time budget each
# (robust to whatever else the machine runs), one after the other on the same machine. Compare the
# last "val" figure of build/cmp-*.log (val loss after the same CPU minutes); logs of one such run:
# models/logs/compare-recipes-*.log.
#   bash models/train/compare_recipes.sh [MINUTES]     (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes=${1:-20}
py=/usr/bin/python3
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
$py models/train/train.py multi30k --src en --tgt de --name cmp-base --threads 1 --cpu-minutes "$minutes"
$py models/train/train.py multi30k --src en --tgt de --name cmp-small --threads 1 --cpu-minutes "$minutes" \
  --layers 4 --d-model 128 --heads 4 --d-ff 256 --dropout 0.3 --lr 5e-3 --warmup 2000 --batch-tokens 4000
for r in base small; do echo "$r: $(grep ' val ' build/cmp-$r.log | tail -1)"; done
