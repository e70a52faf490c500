#!/bin/bash
# The node-profile ablation: NNLP with and without the auxiliary per-node target, on the
# records that carry a profile (after reports/node_profile/backfill.sh). Both studies
# resume from their results.jsonl. One core (0), low priority, torch on one thread; a
# small network (hidden 32) and 30 epochs, so that it fits a shared core in an hour.
cd "$(dirname "$0")/../.."
DB=${DB:-sqlite:////work/campaign/profile/epyc.db}
P=epyc-ort1.31-fp32-t1
M=nnlp,nnlp-node-aux0.1
export PYTHONPATH=src OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
nlat() { nice -n 10 taskset -c 0 python -m nnlat "$@"; }
case "$1" in
  random) nlat eval random-split -p $P --db $DB --profiled-only --methods $M \
            --seeds 0,1,2,3,4 --epochs 30 --hidden 32 --out reports/node_profile/random_split ;;
  random100) nlat eval random-split -p $P --db $DB --profiled-only --methods $M \
            --seeds 0,1,2 --epochs 100 --hidden 32 --out reports/node_profile/random_split_e100 ;;
  lofo)   nlat eval unseen-structure -p $P --db $DB --profiled-only --methods $M \
            --epochs 30 --hidden 32 \
            --out reports/node_profile/lofo ;;
esac
