#!/usr/bin/env bash
# The MAPLE pool campaign: NAS-Bench-201 (int8 TFLite) on the sixteen Vela pool devices
# and the three held-out ones (VELA_HELD_OUT, for onboarding checks).
# Resumable: rerun to continue. Variants are drawn with seed 0; the study splits them by
# position (nnlat.studies.maple.split): 900 training + 200 test of the first 1,100.
# Usage: [CORE=0] [NICE=10] scripts/maple_campaign.sh [DB_URL] [PER_FAMILY] [FAMILY]
set -euo pipefail
cd "$(dirname "$0")/.."
DB=${1:-sqlite:////work/campaign/maple/maple.db}
N=${2:-1100}
FAMILY=${3:-nasbench201-int8}
export PYTHONPATH=src
export NNLAT_VELA_CONFIG=$PWD/src/nnlat/measure/vela_pool.ini
POOL=$(python -c "from nnlat.measure.pool import VELA_HELD_OUT, VELA_POOL; print(','.join(VELA_POOL + VELA_HELD_OUT))")
exec nice -n "${NICE:-10}" taskset -c "${CORE:-0}" python -m nnlat dataset build -f "$FAMILY" -n "$N" -p "$POOL" --seed 0 --db "$DB" --json
