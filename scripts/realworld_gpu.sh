#!/usr/bin/env bash
# Train the shipped-predictor candidates of issue 33 on a lent GPU machine: NNLP on every
# platform's zoo and corpus records (platforms balanced, 80 epochs), once without and once
# with the per-node auxiliary target (weight 0.1), side by side. Which one ships is decided
# on held-out corpus families (scripts/realworld_select.py), not here.
#
#   python scripts/realworld_study.py --db URL --cached-only --dump-records .whl/records.pkl.gz
#   OUT=<folder that comes back> bash scripts/realworld_gpu.sh .whl/records.pkl.gz
#
# Leaves in $OUT: shipped-aux0.log, shipped-aux0.1.log and shipped.tar.gz (the two
# predictor directories). Wheels as in scripts/cobra_gpu.sh (installed there when absent).
set -u
OUT=${OUT:?set OUT to the folder whose files come back}
RECORDS=${1:?the records file}
WORK=${REALWORLD_WORK:-/tmp/realworld_gpu}
BUDGET=${REALWORLD_BUDGET_S:-460}
if [ ! -d /tmp/site ] && compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=/tmp/site:src PYTHONUNBUFFERED=1
mkdir -p "$OUT" "$WORK"
for weight in 0 0.1; do
    timeout -k 5 "$BUDGET" python3 scripts/realworld_study.py --records "$RECORDS" \
        --train "$WORK/nnlp-aux$weight" --epochs 80 --node-aux-weight "$weight" \
        > "$OUT/shipped-aux$weight.log" 2>&1 &
done
wait
tar -czf "$OUT/shipped.tar.gz" -C "$WORK" .
