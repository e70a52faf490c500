#!/usr/bin/env bash
# Issue 33's training on a lent GPU machine, in one run beside scripts/cobra_gpu.sh:
#  - the recipe selection of scripts/realworld_select.py for the graph networks (NNLP with
#    and without the per-node auxiliary target, 30 epochs, the three held-out folds of
#    families: six fits side by side);
#  - the two shipped-predictor candidates: NNLP on every platform's zoo and corpus records
#    (platforms balanced, 80 epochs), without and with the auxiliary target (weight 0.1).
# Which candidate ships is decided by the selection, never by the shipped-model test set.
#
#   python scripts/realworld_study.py --db URL --cached-only --dump-records .whl/records.pkl.gz
#   OUT=<folder that comes back> bash scripts/realworld_gpu.sh .whl/records.pkl.gz
#
# Leaves $OUT/realworld.tar.gz: selection/ (results.jsonl, README.md), nnlp-aux0/ and
# nnlp-aux0.1/ (predictor directories) and the logs. Wheels as in scripts/cobra_gpu.sh.
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
timeout -k 5 "$BUDGET" python3 scripts/realworld_select.py --records "$RECORDS" \
    --out "$WORK/selection" --methods nnlp,nnlp-node-aux0.1 --epochs 30 --jobs 6 \
    > "$WORK/selection.log" 2>&1 &
for weight in 0 0.1; do
    timeout -k 5 "$BUDGET" python3 scripts/realworld_study.py --records "$RECORDS" \
        --train "$WORK/nnlp-aux$weight" --epochs 80 --node-aux-weight "$weight" \
        > "$WORK/shipped-aux$weight.log" 2>&1 &
done
wait
tar -czf "$OUT/realworld.tar.gz" -C "$WORK" .
