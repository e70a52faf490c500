"""Report: the unseen-structure folds of several seeds, and their ensemble.

Run:  python scripts/seed_ensemble.py RUN.jsonl RUN_SEED1.jsonl … [--method nnlp]
      [--out reports/unseen_structure_ensemble.md]

Each JSONL file is the output of one ``nnlat eval unseen-structure --seed S -o …`` run.
The report puts each seed's folds side by side with their ensemble: per test network,
the geometric mean of the seeds' predictions (:func:`nnlat.predictor.evaluation.
seed_ensemble`). A single NNLP's folds move by several points from seed to seed (the
NAS-Bench-201 fold 18-34 % MAPE); averaging the predictors removes that part of the
error, at N times the training and prediction cost.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace
from pathlib import Path

from nnlat.predictor.evaluation import read_results, seed_ensemble
from nnlat.predictor.report import scatter_plot, unseen_structure_markdown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="one results file per seed")
    parser.add_argument("--method", default="nnlp")
    parser.add_argument("--out", type=Path, default=Path("reports/unseen_structure_ensemble.md"))
    args = parser.parse_args()
    missing = [str(path) for path in args.runs if not path.exists()]
    if missing:
        parser.error(f"no such results file: {', '.join(missing)}")
    runs = [read_results(path) for path in args.runs]
    ensemble = seed_ensemble(runs, args.method)
    members = [
        replace(r, method=f"{args.method} ({path.stem})")
        for path, run in zip(args.runs, runs, strict=True)
        for r in run
        if r.method == args.method
    ]
    command = shlex.join(["python", "scripts/seed_ensemble.py", *map(str, args.runs)])
    command += f" --method {args.method} --out {args.out}"
    plot = args.out.with_suffix(".png")
    markdown = unseen_structure_markdown(
        [*members, *ensemble],
        command,
        title=f"Unseen structure: {len(runs)} seeds of {args.method} and their ensemble",
        plot=plot.name,
    )
    args.out.write_text(markdown)
    scatter_plot(ensemble, ensemble[0].method, plot)
    print(f"wrote {args.out} and {plot}")


if __name__ == "__main__":
    main()
