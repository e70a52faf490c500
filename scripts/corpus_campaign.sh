#!/usr/bin/env bash
# Measure the real-architecture corpus (nnlat.zoo.corpus) on this host's reference
# platform, one family after another, on core 1; resumable (rerun the same command:
# `nnlat dataset build` skips what the database holds).
#
#   scripts/corpus_campaign.sh hf-text:400 hf-vision:300 ...     # FAMILY:COUNT ...
#
# Environment: DB (default sqlite:////work/campaign/corpus.db), CORE (default 1), NICE
# (default 0; negative gives the timing process the core where another job shares it),
# FIFO (a real-time priority for chrt -f, e.g. 1: unpinned jobs of others then leave the
# timing core instead of sharing it; default none),
# PLATFORM (default: this host's reference platform), LOG (default /work/campaign/corpus.log;
# one line per family: UTC end time, family, count, exit code, wall seconds).
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH=src
DB=${DB:-sqlite:////work/campaign/corpus.db}
CORE=${CORE:-1}
NICE=${NICE:-0}
PRIORITY=()
[ -n "${FIFO:-}" ] && PRIORITY=(chrt -f "$FIFO")
LOG=${LOG:-/work/campaign/corpus.log}
PLATFORM=${PLATFORM:-$(python -c 'from nnlat.measure.runner import reference_platform; print(reference_platform().name)')}
mkdir -p "$(dirname "$LOG")"
for spec in "$@"; do
    family=${spec%%:*}
    count=${spec##*:}
    start=$(date +%s)
    "${PRIORITY[@]}" nice -n "$NICE" taskset -c "$CORE" python -m nnlat dataset build -f "$family" -n "$count" -p "$PLATFORM" \
        --db "$DB" --json > "${LOG%.log}-$family.json" 2>> "${LOG%.log}-$family.err"
    rc=$?
    echo "$(date -u +%FT%TZ) $family n=$count platform=$PLATFORM rc=$rc wall_s=$(( $(date +%s) - start ))" >> "$LOG"
done
