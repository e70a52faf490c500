#!/usr/bin/env bash
# The MAPLE study as reported in reports/maple/README.md (three invocations, one results file).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=src
run() { nice -n 10 taskset -c 0 python -m nnlat eval maple --table data/maple/nb201_vela_pool.csv "$@"; }
run -m maple-ops,lut,lut-scaled --seeds 3
run -m maple-ops,maple,help,maple-lut,lut,lut-scaled --seeds 1 --steps 200
run -m maple-ops,maple,help,maple-lut,lut,lut-scaled,maple-none,maple-latency,maple-counters,maple-spec --seeds 1 --steps 200
