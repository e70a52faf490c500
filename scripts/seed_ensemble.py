"""Report: the unseen-structure folds of several seeds, and their ensemble.

Run:  python scripts/seed_ensemble.py RUN.jsonl RUN_SEED1.jsonl … [--method nnlp]
      [--out reports/unseen_structure/runs/ensemble]

Each JSONL file is the ``results.jsonl`` of one ``nnlat eval unseen-structure --seed S
-o …`` run. The report folder gets ``README.md`` and ``plot.png``.
The report puts each seed's folds side by side with their ensemble: per test network,
the geometric mean of the seeds' predictions (:func:`nnlat.studies.unseen_structure.
seed_ensemble`). A single NNLP's folds move by several points from seed to seed (the
NAS-Bench-201 fold 18-34 % MAPE); averaging the predictors removes that part of the
error, at N times the training and prediction cost.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace
from pathlib import Path

from nnlat.studies.unseen_structure import markdown, read_results, scatter_plot, seed_ensemble


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="one results file per seed")
    parser.add_argument("--method", default="nnlp")
    parser.add_argument("--out", type=Path, default=Path("reports/unseen_structure/runs/ensemble"))
    args = parser.parse_args()
    missing = [str(path) for path in args.runs if not path.exists()]
    if missing:
        parser.error(f"no such results file: {', '.join(missing)}")
    runs = [read_results(path) for path in args.runs]
    ensemble = seed_ensemble(runs, args.method)
    members = [
        replace(r, method=f"{args.method} ({path.parent.name})")
        for path, run in zip(args.runs, runs, strict=True)
        for r in run
        if r.method == args.method
    ]
    command = shlex.join(["python", "scripts/seed_ensemble.py", *map(str, args.runs)])
    command += f" --method {args.method} --out {args.out}"
    args.out.mkdir(parents=True, exist_ok=True)
    plot = args.out / "plot.png"
    text = markdown(
        [*members, *ensemble],
        command,
        title=f"Unseen structure: {len(runs)} seeds of {args.method} and their ensemble",
        plot=plot.name,
    )
    (args.out / "README.md").write_text(text)
    scatter_plot(ensemble, ensemble[0].method, plot)
    print(f"wrote {args.out / 'README.md'} and {plot}")


if __name__ == "__main__":
    main()
