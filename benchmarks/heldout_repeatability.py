"""Benchmark: is a held-out model measured again in a fresh process within 3 %?

Run (after ``python scripts/fetch_heldout.py``; on an otherwise idle core):

    chrt -f 1 taskset -c 1 python benchmarks/heldout_repeatability.py [--processes 2] [--set 2-7]

Runs ``scripts/measure_heldout.py`` (the campaign protocol, each shipped file as given) in
``--processes`` fresh processes, each into its own throw-away database, then prints per
model each process's median and the largest deviation from their median, and overall the
median of those deviations: the figure the 3 % target is about.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).parents[1] / "scripts" / "measure_heldout.py"
sys.path.insert(0, str(SCRIPT.parent))
from fetch_heldout import SETS  # noqa: E402  (a script beside measure_heldout.py)


def medians(db: Path) -> dict[str, float]:
    """Family → median ms of every ok measurement in the SQLite file."""
    rows = sqlite3.connect(db).execute(
        "select m.family, x.median_ms from measurements x join models m on m.id = x.model_id"
        " where x.status = 'ok'"
    )
    return {family.removeprefix("realworld:"): median for family, median in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--set", default="1", choices=[str(n) for n in sorted(SETS)], help="the held-out set"
    )
    parser.add_argument("--cache", help="where fetch_heldout.py put the files")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.processes):
            db = Path(tmp) / f"run{i}.sqlite"
            command = [sys.executable, str(SCRIPT), "--db", f"sqlite:///{db}", "--set", args.set]
            command += ["--cache", args.cache] if args.cache else []
            subprocess.run(command, check=True, capture_output=True)
            runs.append(medians(db))
    print("| model | median of each process, ms | largest deviation |")
    print("|---|---|---|")
    deviations = []
    for name in sorted(set.intersection(*(set(r) for r in runs))):
        values = [r[name] for r in runs]
        centre = statistics.median(values)
        deviation = max(abs(v / centre - 1) for v in values)
        deviations.append(deviation)
        shown = " / ".join(f"{v:.4g}" for v in values)
        print(f"| {name} | {shown} | {deviation * 100:.1f} % |")
    within = sum(d <= 0.03 for d in deviations)
    print(
        f"\n{len(deviations)} models: median deviation {statistics.median(deviations) * 100:.1f} %;"
        f" {within} within 3 %"
    )


if __name__ == "__main__":
    main()
