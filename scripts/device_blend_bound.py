"""Report: how far other devices' latencies alone explain an unseen device's, from k shots.

Run:  python scripts/device_blend_bound.py FILE.csv --space nas-bench-201 [--out FILE.md]

Few-shot methods that build a device description from k latencies (HELP's hardware
embedding, MAPLE's descriptor, nnlat's copied head) all bet that the unseen device
behaves like some mix of the training devices. This script measures that bet with an
*oracle* no predictor has: the training devices' true published latencies on every
test architecture. For each target device of the file (leave-one-device-out, the same
pools and random shots as ``nnlat eval few-shot``), two oracle predictions of the
target's log-latency from its k shots:

* ``best device``: the one training device whose log-latencies match the shots best up
  to a constant (what the ``shift`` mode does with predicted latencies);
* ``blend``: a ridge regression on all training devices' log-latencies, shrunk toward
  the best device, its strength chosen by leave-one-out on the k shots.

Acc(10 %) on the target's other architectures, per device and k, averaged over seeds.
Where even these stay low, the target's latencies carry structure the other devices'
do not, and k shots are too few to learn it.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
from supervised_ceiling import report_main  # this folder: run as python scripts/…

from nnlat.datasets.published import read_latency_table
from nnlat.predictor.metrics import acc_within
from nnlat.predictor.transfer import closest_up_to_factor
from nnlat.studies.few_shot import SHOTS, draw_shots, training_pool

STRENGTHS = (0.01, 0.1, 1.0, 10.0)  # ridge penalties tried, per shot


def blend_weights(shots: np.ndarray, pool: np.ndarray, strength: float) -> np.ndarray:
    """Weights (last: intercept) of a ridge fit of ``shots`` on ``pool``, shrunk toward
    the best device's one-hot weights."""
    column, _ = closest_up_to_factor(shots, pool)
    prior = np.zeros(pool.shape[1])
    prior[column] = 1.0
    centred = pool - pool.mean(axis=0)
    residual = shots - shots.mean() - centred @ prior
    penalty = strength * len(shots) * np.eye(pool.shape[1])
    weights = prior + np.linalg.solve(centred.T @ centred + penalty, centred.T @ residual)
    return np.append(weights, shots.mean() - pool.mean(axis=0) @ weights)


def blend(shots: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """:func:`blend_weights` with the strength of the lowest leave-one-out error."""

    def loo_error(strength: float) -> float:
        errors = []
        for i in range(len(shots)):
            keep = np.arange(len(shots)) != i
            w = blend_weights(shots[keep], pool[keep], strength)
            errors.append((pool[i] @ w[:-1] + w[-1] - shots[i]) ** 2)
        return float(np.mean(errors))

    strength = min(STRENGTHS, key=loo_error) if len(shots) > 2 else STRENGTHS[-1]
    return blend_weights(shots, pool, strength)


def bound_lines(path: Path, space: str, seeds: list[int]) -> list[str]:
    """The Markdown report: one row per (device, k), then the mean over devices."""
    table = read_latency_table(path, space)
    columns = [d.column for d in table.devices]
    logs = np.log(table.latencies_ms)
    lines = [
        f"# Other devices as an oracle for an unseen one: `{path.name}`",
        "",
        f"Made by `python scripts/device_blend_bound.py {path.name} --space {space}"
        f" --seeds {','.join(map(str, seeds))}`. Leave-one-device-out, random shots as"
        " `nnlat eval few-shot`; predictions use the training devices' *true* latencies"
        " on the test architectures (an oracle). Acc(10 %), mean over seeds.",
        "",
        "| device | k | best device | blend |",
        "|---|---|---|---|",
    ]
    means: dict[tuple[int, str], list[float]] = {}
    for target in columns:
        pool = [columns.index(d) for d in training_pool(table, columns, table, target)]
        rows = np.flatnonzero(np.isfinite(logs[:, [columns.index(target), *pool]]).all(axis=1))
        y, x = logs[rows, columns.index(target)], logs[rows][:, pool]
        for k in SHOTS:
            got: dict[str, list[float]] = {"best device": [], "blend": []}
            for seed in seeds:
                picks, rest = draw_shots(len(rows), SHOTS, seed)
                column, shift = closest_up_to_factor(y[picks[k]], x[picks[k]])
                w = blend(y[picks[k]], x[picks[k]])
                truth = np.exp(y[rest])
                got["best device"].append(acc_within(truth, np.exp(x[rest, column] + shift), 0.1))
                got["blend"].append(acc_within(truth, np.exp(x[rest] @ w[:-1] + w[-1]), 0.1))
            cells = {name: statistics.mean(v) * 100 for name, v in got.items()}
            for name, value in cells.items():
                means.setdefault((k, name), []).append(value)
            lines.append(f"| {target} | {k} | {cells['best device']:.1f} | {cells['blend']:.1f} |")
    for k in SHOTS:
        best, mixed = (statistics.mean(means[k, n]) for n in ("best device", "blend"))
        lines.append(f"| **mean** | {k} | **{best:.1f}** | **{mixed:.1f}** |")
    return lines


def main() -> None:
    report_main(__doc__, lambda args: bound_lines(args.file, args.space, args.seeds))


if __name__ == "__main__":
    main()
