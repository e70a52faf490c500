"""Table 6 over seeds: mean ± standard deviation of each cell across PerfSAGE study runs.

Each folder holds the ``results.jsonl`` of one ``nnlat eval perfsage`` run with its own
``--seed`` (the seed draws the split, the validation share and the initial weights), so a
cell's spread is what one more seed could move it by. Methods and modes are rows, (space,
target, platform) columns are grouped by target; a cell shows the mean test MAPE ± its
standard deviation over the folders that have it, and how many seeds that is when not all.

Usage:
    python scripts/perfsage_seeds.py reports/perfsage/runs/heap-memory-500 \\
        reports/perfsage/runs/heap-memory-500-seed1 reports/perfsage/runs/heap-memory-500-seed2
"""

from __future__ import annotations

import collections
import json
import statistics
import sys
from pathlib import Path

SPACES = ("cnn-kws", "cnn-cifar10", "vit-cifar100", "cnn-imagenet")


def cells(folders: list[Path]) -> dict[tuple[str, ...], list[float]]:
    """(method, mode, space, target, platform) → test MAPEs, one per folder that has it."""
    found: dict[tuple[str, ...], list[float]] = collections.defaultdict(list)
    for folder in folders:
        for line in (folder / "results.jsonl").read_text().splitlines():
            row = json.loads(line)
            key = (row["method"], row["mode"], row["space"], row["target"], row["platform"])
            found[key].append(100 * row["mape"])
    return found


def validation(folders: list[Path]) -> dict[tuple[str, str], list[float]]:
    """(method, mode) → the median over its runs of the kept epoch's validation score, a
    value per folder."""
    found: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    for folder in folders:
        scores: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
        for line in (folder / "results.jsonl").read_text().splitlines():
            row = json.loads(line)
            if row["valid_mape"] is not None:
                scores[(row["method"], row["mode"])].append(100 * row["valid_mape"])
        for key, values in scores.items():
            found[key].append(statistics.median(values))
    return found


def show(values: list[float], seeds: int) -> str:
    """``mean ± sd`` (and ``(n)`` when fewer than ``seeds`` folders had the cell)."""
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    count = "" if len(values) == seeds else f" ({len(values)})"
    return f"{statistics.mean(values):.1f} ± {spread:.1f}{count}"


def main() -> None:
    """Print one Markdown table per (target, platform), then the validation scores."""
    folders = [Path(f) for f in sys.argv[1:]]
    found = cells(folders)
    rows = sorted({(k[0], k[1]) for k in found})
    columns = sorted({(k[3], k[4]) for k in found})
    for target, platform in columns:
        print(f"\n{target}, `{platform}` (test MAPE %, {len(folders)} seeds):\n")
        print("| method | mode | " + " | ".join(SPACES) + " |")
        print("|---|---|" + "---|" * len(SPACES))
        for method, mode in rows:
            values = [found.get((method, mode, s, target, platform)) for s in SPACES]
            if not any(values):
                continue
            shown = [show(v, len(folders)) if v else "–" for v in values]
            print(f"| {method} | {mode} | " + " | ".join(shown) + " |")
    print("\nValidation score (median over heads and spaces), %:\n")
    print("| method | mode | validation |")
    print("|---|---|---|")
    for (method, mode), values in sorted(validation(folders).items()):
        print(f"| {method} | {mode} | {show(values, len(folders))} |")


if __name__ == "__main__":
    main()
