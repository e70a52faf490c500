"""Judge saved predictors on a held-out set measured earlier, on any host.

A held-out set is measured on the reference hardware (``scripts/measure_heldout.py
--save FILE``: one JSON line per file, its measurement without model bytes); the look can
then happen wherever the predictors are, without that hardware:

    python scripts/fetch_heldout.py --set 4
    python scripts/judge_heldout.py --set 4 --measured reports/realworld/set4/measured.jsonl \\
        --predictor src/nnlat/predictor/pretrained [--predictor DIR ...] [--ensemble] \\
        --out FILE.md

Each fetched file is checked against the digest the measurement was taken of, loaded at
the input shapes it was measured with, and predicted by each predictor's head for the
measured platform (the nearest head where it has none), uncalibrated: what the predictor
itself says. Printed and written: MAPE, Acc(10 %), Acc(25 %) per predictor and a per-model
table. Nothing here trains; the measured values are read only to score.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import NamedTuple

import numpy as np

import nnlat
from nnlat.predictor.ensemble import load_saved
from nnlat.predictor.metrics import acc_within, mape

from fetch_heldout import DEFAULT_CACHE, SETS  # isort: skip (scripts/ is on the path when run from it)


class Judged(NamedTuple):
    """What :func:`predictions` gives, file by file in the order of ``ok``."""

    ok: list[dict]  # the files measured ok
    measured_ms: np.ndarray
    answers: dict[str, np.ndarray]  # predictor label → predicted ms
    outside: dict[str, list[tuple[str, ...]]]  # label → Prediction.outside_training
    data_dependent: list[tuple[str, ...]]  # Prediction.data_dependent (the file's own)


def predictions(
    measured: list[dict],
    cache: Path,
    heldout_set: int,
    predictors: list[Path],
    ensemble: bool = False,
) -> Judged:
    """Each predictor's answers for the files measured ok (see :class:`Judged`).

    With ``ensemble``, one more column: the geometric mean of the predictors' answers
    (seeds of one recipe averaged; errors in latency are multiplicative, hence geometric).
    """
    entries = {e.name: e for e in SETS[heldout_set]}
    ok = [m for m in measured if m["status"] == "ok"]
    truth = np.array([m["stats"]["median_ms"] for m in ok])
    files = [cache / entries[m["name"]].relative_path() for m in ok]
    for file, m in zip(files, ok, strict=True):
        if hashlib.sha256(file.read_bytes()).hexdigest() != m["sha256"]:
            raise SystemExit(f"{file}: not the file that was measured (sha256 differs)")
    columns: dict[str, np.ndarray] = {}
    outside: dict[str, list[tuple[str, ...]]] = {}
    data_dependent: list[tuple[str, ...]] = []
    for path in predictors:
        predictor = load_saved(path)
        values, label = [], f"{path} ({predictor.info.get('name', '?')})"
        for file, m in zip(files, ok, strict=True):
            prediction = nnlat.predict(
                file,
                m["platform"],
                m["batch_size"],
                {k: tuple(v) for k, v in m["input_shapes"].items()},
                predictor=predictor,
                calibrated=False,
            )
            values.append(prediction.latency_ms)
            outside.setdefault(label, []).append(prediction.outside_training)
            if path == predictors[0]:  # a property of the file, not of the predictor
                data_dependent.append(prediction.data_dependent)
        columns[label] = np.array(values)
    if ensemble and len(columns) > 1:
        logs = np.log(np.maximum(np.stack(list(columns.values())), 1e-9))
        columns[f"geometric mean of the {len(columns)} above"] = np.exp(logs.mean(axis=0))
    return Judged(ok, truth, columns, outside, data_dependent)


def judge(
    measured: list[dict],
    cache: Path,
    heldout_set: int,
    predictors: list[Path],
    ensemble: bool = False,
) -> list[str]:
    """Markdown lines: the summary per predictor, then predicted against measured per model."""
    ok, truth, columns, _, _ = predictions(measured, cache, heldout_set, predictors, ensemble)
    lines = [
        f"{len(ok)} of {len(measured)} files measured ok on "
        f"{sorted({m['platform'] for m in ok})}, hardware "
        f"{sorted({m.get('hardware_fingerprint', '?') for m in ok})}.",
        "",
        "| predictor | MAPE | Acc(10 %) | Acc(25 %) |",
        "|---|---|---|---|",
    ]
    for label, values in columns.items():
        lines.append(
            f"| `{label}` | {mape(truth, values) * 100:.1f} % | "
            f"{acc_within(truth, values, 0.1) * 100:.0f} % | "
            f"{acc_within(truth, values, 0.25) * 100:.0f} % |"
        )
    lines += ["", "| model | measured ms | " + " | ".join(f"`{c}`" for c in columns) + " |"]
    lines.append("|---|---|" + "---|" * len(columns))
    for i, m in enumerate(ok):
        cells = [f"{v[i]:.4g} ({v[i] / truth[i] - 1:+.0%})" for v in columns.values()]
        lines.append(f"| {m['name']} | {truth[i]:.4g} | " + " | ".join(cells) + " |")
    return lines


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """``--predictor`` (repeated), ``--cache``, ``--out`` and ``--ensemble``."""
    parser.add_argument("--predictor", type=Path, action="append", required=True)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, help="also write the tables here (Markdown)")
    parser.add_argument(
        "--ensemble", action="store_true", help="also judge the predictors' geometric mean"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=int, choices=sorted(SETS), required=True, dest="heldout_set")
    parser.add_argument("--measured", type=Path, required=True, help="measure_heldout --save")
    add_judge_arguments(parser)
    args = parser.parse_args()
    measured = [json.loads(line) for line in args.measured.read_text().splitlines() if line]
    lines = judge(measured, args.cache, args.heldout_set, args.predictor, args.ensemble)
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
