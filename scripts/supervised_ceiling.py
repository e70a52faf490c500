"""Report: how well each device of a published table can be learned from its *own* data.

Run:  python scripts/supervised_ceiling.py FILE.csv --space nas-bench-201 [--out FILE.md]

For every device column: train on 900 of the device's own latencies (100 more for
validation), test on the architectures after the first 1,000 of the draw — the BRP-NAS
protocol of :mod:`nnlat.studies.brpnas` on cell graphs — and print Acc(5/10 %),
MAPE and Spearman. Few-shot adaptation (``nnlat eval few-shot``) sees k ≤ 100 latencies
of a device, so this fully supervised figure bounds what it can hope for: a device whose
repeated measurements scatter by more than 10 % cannot be predicted within 10 % by
anything. ``--methods`` takes registered method names (default: ``cell-xgboost``, XGBoost
on the one-hot cell, NAS-Bench-201 only; ``nnlp`` works for both spaces).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from pathlib import Path

from nnlat.datasets.cell_graphs import cell_archs, cell_records
from nnlat.datasets.published import read_latency_table
from nnlat.errors import NnlatError
from nnlat.studies.brpnas import BrpnasStudyConfig, run


def comma_list(text: str) -> list[str]:
    """The items of a comma-separated option."""
    return [item.strip() for item in text.split(",") if item.strip()]


def ceiling_lines(path: Path, space: str, methods: list[str], seeds: list[int]) -> list[str]:
    """The Markdown table: one row per (device, method), metrics averaged over seeds."""
    table = read_latency_table(path, space)
    archs = cell_archs(table)
    lines = [
        f"# Supervised ceiling per device: `{path.name}`",
        "",
        f"Made by `python scripts/supervised_ceiling.py {path.name} --space {space}"
        f" --methods {','.join(methods)} --seeds {','.join(map(str, seeds))}`: 900 training"
        " + 100 validation architectures of the device itself, tested on the rest of each"
        f" draw; mean over seeds {seeds}.",
        "",
        "| device | method | test | Acc(5 %) | Acc(10 %) | MAPE | Spearman |",
        "|---|---|---|---|---|---|---|",
    ]
    for device in table.devices:
        records = cell_records(table, device.column)
        config = BrpnasStudyConfig(tuple(methods), tuple(seeds), (900,), largest=900)
        results = run(config, records, archs).rows
        for method in methods:
            group = [r for r in results if r.method == method]
            mean = {k: statistics.mean(r.metrics[k] for r in group) for k in group[0].metrics}
            lines.append(
                f"| {device.column} | {method} | {group[0].test_size} |"
                f" {mean['acc_5'] * 100:.1f} | {mean['acc_10'] * 100:.1f} |"
                f" {mean['mape'] * 100:.1f} % | {mean['spearman']:.3f} |"
            )
    return lines


def report_main(
    description: str,
    lines: Callable[[argparse.Namespace], list[str]],
    options: Callable[[argparse.ArgumentParser], None] | None = None,
) -> None:
    """Command line of the per-device reports on a published table (this one's and
    ``device_blend_bound.py``'s): FILE, ``--space``, ``--seeds``, ``--out`` plus
    ``options``; the Markdown of ``lines(args)`` goes to ``--out`` or standard output."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--space", required=True, choices=["nas-bench-201", "fbnet"])
    parser.add_argument(
        "--seeds", default="0,1,2", type=lambda text: list(map(int, comma_list(text)))
    )
    parser.add_argument("--out", type=Path)
    if options is not None:
        options(parser)
    args = parser.parse_args()
    try:
        text = "\n".join(lines(args)) + "\n"
    except NnlatError as error:  # unknown device or method, malformed file: no traceback
        parser.error(str(error))
    if args.out:
        args.out.write_text(text)
    else:
        print(text, end="")


def main() -> None:
    report_main(
        __doc__,
        lambda args: ceiling_lines(args.file, args.space, args.methods, args.seeds),
        lambda parser: parser.add_argument("--methods", default=["cell-xgboost"], type=comma_list),
    )


if __name__ == "__main__":
    main()
