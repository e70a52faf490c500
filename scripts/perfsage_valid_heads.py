"""Each head's validation MAPE, epoch by epoch, of a PerfSAGE specialised on one space.

Trains as ``nnlat eval perfsage --per-space 100 --cached-only --hidden 64`` does (the
space's first graphs, seed 0, the same 80 % pool; the 20 % test part is not touched) and
prints, after each epoch, the validation score the run chooses its epoch by (the MAPE
over every validation graph, or with ``--median-head`` the median of the heads') and
each head's own MAPE. This showed that on ``cnn-imagenet`` the CPU memory head (a page-
granular noise target) chose the epoch for the others (see reports/perfsage/NOTES.md).

Usage:
    PYTHONPATH=src nice -n 10 taskset -c 0 python scripts/perfsage_valid_heads.py \\
        --db /work/campaign/perfsage/perfsage.db --space cnn-imagenet --epochs 30
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
from torch import nn
from torch_geometric.data import Data

from nnlat.datasets.training import default_cache_dir, load_records
from nnlat.predictor import training
from nnlat.predictor.training import TrainSettings
from nnlat.store import Store
from nnlat.studies import perfsage as study
from nnlat.studies.methods import METHODS, MethodContext


def main() -> None:
    """Parse the options, train once, print a line per epoch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="SQLite file of the measurements.")
    parser.add_argument("--space", required=True, help="The design space (zoo family).")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--per-space", type=int, default=100)
    parser.add_argument("--median-head", action="store_true", help="Choose by the median head.")
    args = parser.parse_args()
    with Store.open(f"sqlite:///{args.db}") as store:
        records = load_records(
            store, None, [args.space], cache_dir=default_cache_dir(), cached_only=True
        )
    chosen = study.cap_per_space(study.measured_memory(records), args.per_space)
    pool, _ = study.split_space(chosen, 0.2, seed=0)
    score_of = training.validation_mape

    def traced(net: nn.Module, valid: Sequence[Data], per_platform: bool, median: bool) -> float:
        score = score_of(net, valid, per_platform, median)
        predicted = np.exp(training.predict_log(net, valid))
        measured = np.array([float(d.y) for d in valid])
        heads = np.array([int(d.platform) for d in valid])
        errors = np.abs(predicted - measured) / measured
        per_head = " ".join(
            f"head {h}: {errors[heads == h].mean():.0%}" for h in sorted(set(heads))
        )
        print(f"validation {score:.1%} | {per_head}", flush=True)
        return score

    training.validation_mape = traced  # train_network looks it up at each epoch
    settings = TrainSettings(epochs=args.epochs, median_head_selection=args.median_head)
    context = MethodContext(settings=settings, config={"hidden": 64}, targets=("latency", "memory"))
    model = METHODS.get("perfsage").build(context).fit(pool)
    for index, head in enumerate(model.predictor_.heads):
        print(f"head {index}: {head}")
    print(f"kept epoch {model.train_result_.best_epoch}")


if __name__ == "__main__":
    main()
