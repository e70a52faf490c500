"""Development study: how much fine-tuning few-shot adaptation can afford, per k.

Run:  python scripts/few_shot_budget.py FILE.csv --space fbnet --targets pixel3,silver_4114

For each target device (left out of pre-training with its other batch sizes, as in
``nnlat eval few-shot``), seeds 0-2 of random shots, k = 3, 10, 32, 100: Acc(10 %) of
the adapted predictor on the target's architectures after the largest k, for the plain
shift and for fine-tuning budgets written ``PART:LR:EPOCHS:BATCH`` (``all`` or
``heads``; a validation share of 20 % for early stopping from 20 shots on). This is how
the two budgets of :func:`nnlat.studies.few_shot.adapt_settings` were chosen, on the
development targets silver_4114 and pixel3 only; the study itself judges them on every
device.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from nnlat.datasets.cell_graphs import cell_records
from nnlat.datasets.published import read_latency_table
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import accuracy_report
from nnlat.predictor.predictor import Predictor, to_data
from nnlat.predictor.training import TrainSettings, predict_log
from nnlat.predictor.transfer import FINE_TUNE_SETTINGS, fine_tune
from nnlat.studies.few_shot import (
    SHOTS,
    adapt,
    draw_shots,
    pretrain,
    pretrained_cache,
    training_pool,
)

DEFAULT_BUDGETS = "all:1e-4:30:128,all:3e-4:100:16"


def parse_budget(budget: str) -> tuple[str, TrainSettings]:
    """``PART:LR:EPOCHS:BATCH`` → (part, fine-tuning settings); exits if malformed."""
    fields = budget.split(":")
    if len(fields) != 4 or fields[0] not in ("all", "heads"):
        raise SystemExit(f"budget {budget!r}: expected PART:LR:EPOCHS:BATCH, PART all or heads")
    part, lr, epochs, batch = fields
    try:
        update = {"lr": float(lr), "epochs": int(epochs), "batch_size": int(batch)}
    except ValueError:
        raise SystemExit(f"budget {budget!r}: LR, EPOCHS and BATCH must be numbers") from None
    return part, FINE_TUNE_SETTINGS.model_copy(update=update)


def adapted(
    predictor: Predictor, shots: Sequence[LatencyRecord], budget: str, seed: int
) -> Predictor:
    """``predictor`` adapted to ``shots`` by the plain shift or a fine-tuning budget."""
    if budget == "shift":
        return adapt(predictor, shots, "shift", seed)[0]
    part, settings = parse_budget(budget)
    settings = settings.model_copy(update={"seed": seed})
    return fine_tune(predictor, shots, settings=settings, part=part)[0]  # type: ignore[arg-type]


def budget_lines(path: Path, space: str, targets: list[str], budgets: list[str]) -> list[str]:
    """The Markdown table: Acc(10 %) per (target, budget) and k, mean over seeds 0-2."""
    table = read_latency_table(path, space)
    devices = [d.column for d in table.devices]
    lines = [
        f"Acc(10 %) on `{path.name}`, mean of seeds 0-2:",
        "",
        "| target | adaptation | " + " | ".join(f"k = {k}" for k in SHOTS) + " |",
        "|---|---|" + "---|" * len(SHOTS),
    ]
    for name in targets:
        pool = training_pool(table, devices, table, name)
        predictor = pretrain(table, pool, cache_dir=pretrained_cache())
        records = cell_records(table, name)
        head = len(predictor.platforms)  # the head every adapted copy appends
        encoded = [to_data(predictor.schema.encode(r.raw), head) for r in records]
        scores: dict[tuple[str, int], list[float]] = {}
        for seed in (0, 1, 2):
            picks, rest = draw_shots(len(records), SHOTS, seed)
            truth = np.array([records[i].latency_ms for i in rest])
            for k in SHOTS:
                for budget in budgets:
                    tuned = adapted(predictor, [records[i] for i in picks[k]], budget, seed)
                    predicted = np.exp(predict_log(tuned.net, [encoded[i] for i in rest]))
                    acc = accuracy_report(truth, predicted)["acc_10"]
                    scores.setdefault((budget, k), []).append(acc)
        for budget in budgets:
            cells = [f"{statistics.mean(scores[budget, k]) * 100:.1f}" for k in SHOTS]
            lines.append(f"| {name} | `{budget}` | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="a HELP-shaped latency CSV")
    parser.add_argument("--space", required=True, choices=["nas-bench-201", "fbnet"])
    parser.add_argument("--targets", default="pixel3,silver_4114")
    parser.add_argument("--budgets", default=DEFAULT_BUDGETS, help="PART:LR:EPOCHS:BATCH,...")
    args = parser.parse_args()
    budgets = ["shift", *args.budgets.split(",")]
    for budget in budgets[1:]:
        parse_budget(budget)  # refuse a malformed one before any pre-training
    lines = budget_lines(args.file, args.space, args.targets.split(","), budgets)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
