#!/usr/bin/env bash
# The MAPLE study as reported in reports/maple/README.md (three invocations, one results file;
# nnlp-ft joined the last one on 2026-11-27, nnlp-lut-traffic later that day;
# a rerun resumes from it). The traffic variants' pricing was chosen by
# scripts/maple_validation.py on validation positions only (reports/maple/validation.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=src OMP_NUM_THREADS=1
run() { nice -n 10 taskset -c 0 python -m nnlat eval maple --table data/maple/nb201_vela_pool.csv "$@"; }
run -m maple-ops,maple-ops-traffic,lut,lut-scaled --seeds 3
run -m maple-ops,maple-ops-traffic,maple,help,maple-lut,maple-lut-traffic,lut,lut-scaled --seeds 1 --steps 200
run -m maple-ops,maple-ops-traffic,maple,help,maple-lut,maple-lut-traffic,lut,lut-scaled,nnlp-ft,nnlp-lut-traffic,maple-none,maple-latency,maple-counters,maple-spec --seeds 1 --steps 200 --nnlp-epochs 15
