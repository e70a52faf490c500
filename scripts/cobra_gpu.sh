#!/usr/bin/env bash
# The COBRA study (scripts/cobra_study.py) in one run of ~8 minutes on a lent GPU machine
# (1 GPU, 16 cores, Python 3.12 with torch, torch-geometric, tokenizers, onnx, onnxruntime,
# matplotlib... but without what else nnlat imports), from the repository root:
#
#   OUT=<folder that comes back> bash scripts/cobra_gpu.sh
#
# Stops training at COBRA_BUDGET_S (default 470 s) less a margin, writes the report of
# what finished, and leaves in $OUT: cobra.log, README.md, figure3.png, figure5.png and
# cobra_runs.tar.gz (the runs/ folder: networks.jsonl, encoders.json, the weights and the
# COBRA model; extract into reports/cobra/ to resume or to re-render with the study).
#
# Seen on 16 cores + 1 H100 (2026-11-26, first try, 32,200 layers, encoder batches of 64):
# an encoder epoch took ~16 s beside the GCN fits, so 40 epochs of two encoders did not fit
# in one run; batches of 256 are the answer (below). That try also showed why the graphs
# travel: its torch (2.11) renders other snippet texts than the 2.13 that timed them, and
# only 30 of 2,000 networks matched (the study now refuses that, naming both versions).
#
# The wheels the machine lacks travel in .whl/ (git-ignored; carry it). Made with:
#
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#     --platform manylinux2014_x86_64 -d .whl pydantic==2.13.4 pydantic_core==2.46.4 \
#     annotated-types==0.7.0 typing-inspection==0.4.2 typing_extensions==4.16.0 \
#     SQLAlchemy==2.1.9 alembic==1.20.1 Mako==1.4.3 MarkupSafe==3.0.3 platformdirs==4.14.8
#
# (pydantic: the training settings; SQLAlchemy, alembic, Mako, platformdirs: nnlat.store,
# which nnlat.datasets imports; MarkupSafe for Mako, in case the machine's jinja2 lacks it.)
#
# A check of this script end to end on one CPU core, in under 3 minutes:
#
#   OUT=/tmp/out nice -n 10 taskset -c 0 bash scripts/cobra_gpu.sh --tiny
set -u
OUT=${OUT:?set OUT to the folder whose files come back}
BUDGET=${COBRA_BUDGET_S:-470}
WORK=${COBRA_WORK:-/tmp/cobra_gpu}
# GCN batches of 32 (nnlat's CPU default is 8, the paper's 2): fifteen GCN fits share one
# GPU, each bound by per-step overhead; a quarter of the steps is what fits in one run.
GCN_BATCH=${COBRA_GCN_BATCH:-32}
# Encoder batches of 256 (the CPU default is 64): a step of the small encoder costs the
# GPU about the same at either size, so an epoch takes a quarter of the steps.
ENCODER_BATCH=${COBRA_ENCODER_BATCH:-256}
# COBRA_ARGS: more study options, e.g. "--methods layerwise cobra cobra-mean --seeds 0".
read -r -a EXTRA <<< "${COBRA_ARGS:-}"
ARGS=(--gcn-batch-size "$GCN_BATCH" --encoder-batch-size "$ENCODER_BATCH" "${EXTRA[@]}")
if [ "${1:-}" = "--tiny" ]; then
    BUDGET=${COBRA_BUDGET_S:-175}
    ARGS=(--max-networks 10 --max-layers 120 --seeds 0 --encoder-epochs 1 --gcn-epochs 2
          --vocab-size 400 --scale-note "TINY CHECK of scripts/cobra_gpu.sh: not a result")
fi
mkdir -p "$OUT"

main() {
if [ -d /tmp/site ]; then  # installed already (by a script run beside this one)
    export PYTHONPATH=/tmp/site:src
elif compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site:src
else
    export PYTHONPATH=src
fi
export PYTHONUNBUFFERED=1
nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
python3 -c "import sys, torch; print(sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available(), 'cores', len(__import__('os').sched_getaffinity(0)))"

rm -rf "$WORK"
mkdir -p "$WORK"
# To go on from an earlier run: COBRA_RESUME=<its cobra_runs.tar.gz, carried>.
if [ -n "${COBRA_RESUME:-}" ]; then
    tar -xzf "$COBRA_RESUME" -C "$WORK" && echo "resuming from $COBRA_RESUME"
fi
# The snippet texts depend on the torch that renders them (constructor signatures), and the
# machine's torch is not the one that timed them: COBRA_GRAPHS=<graphs.jsonl.gz written
# here by `scripts/cobra_study.py --interpret-only`, carried> skips interpreting there.
if [ -n "${COBRA_GRAPHS:-}" ]; then
    mkdir -p "$WORK/runs" && cp "$COBRA_GRAPHS" "$WORK/runs/graphs.jsonl.gz"
fi
# Training stops at LIMIT; the report then takes ~20 s (more on a busy core).
LIMIT=$((BUDGET - ${COBRA_MARGIN_S:-70} - SECONDS))
echo "[$SECONDS s] study: --time-limit $LIMIT ${ARGS[*]}"
timeout -k 5 $((BUDGET - 10 - SECONDS)) python3 scripts/cobra_study.py --out "$WORK" \
    --time-limit "$LIMIT" "${ARGS[@]}"
echo "[$SECONDS s] study exit code $?"

cp "$WORK"/README.md "$WORK"/figure*.png "$OUT"/ 2>/dev/null
tar -czf "$OUT/cobra_runs.tar.gz" -C "$WORK" runs 2>/dev/null
ls -la "$OUT"
echo "[$SECONDS s] done"
}

main 2>&1 | tee "$OUT/cobra.log"
