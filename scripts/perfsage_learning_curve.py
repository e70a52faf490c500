"""PerfSAGE's learning curve: specialised test MAPE against the number of training graphs.

One design space, one fixed test set (20 % of ``--graphs`` graphs, the study's split), and
PerfSAGE specialised trained on growing shares of the 80 % pool (validation carved out of
each share, as in ``nnlat eval perfsage``). Says whether more graphs would close the gap
to the paper's errors. Rows go to ``OUT/learning_curve.jsonl`` (a finished size is
skipped on a rerun); the table and ``learning_curve.png`` are written from them.

Usage:
    PYTHONPATH=src python scripts/perfsage_learning_curve.py --db sqlite:///x.db \\
        --space cnn-kws --graphs 200 --sizes 20,40,80,160 --epochs 20 --hidden 64 \\
        --out reports/perfsage
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from nnlat.datasets.training import default_cache_dir, load_records
from nnlat.predictor.metrics import mape
from nnlat.predictor.training import TrainSettings
from nnlat.store import Store
from nnlat.studies import perfsage as study
from nnlat.studies.methods import METHODS, MethodContext

ROWS = "learning_curve.jsonl"


def curve(args: argparse.Namespace) -> list[dict[str, object]]:
    """Train at every size not yet in the rows file; return every row."""
    path = args.out / ROWS
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done = {(r["space"], r["size"]) for r in rows}
    with Store.open(args.db) as store:
        records = load_records(
            store, None, (args.space,), cache_dir=default_cache_dir(), cached_only=True
        )
    records = study.cap_per_space(study.measured_memory(records), args.graphs)
    pool, test = study.split_space(records, 0.2, args.seed)
    graphs = sorted({r.graph_hash for r in pool})
    order = np.random.default_rng(args.seed).permutation(len(graphs))
    context = MethodContext(
        settings=TrainSettings(epochs=args.epochs, seed=args.seed),
        config={"hidden": args.hidden},
        targets=("latency", "memory"),
    )
    for size in args.sizes:
        if (args.space, size) in done:
            continue
        kept = {graphs[i] for i in order[:size]}
        train = [r for r in pool if r.graph_hash in kept]
        model = METHODS.get("perfsage").build(context).fit(train)
        predictor = model.predictor_
        for platform, target in predictor.heads:
            scored = [r for r in test if r.platform == platform and r.target(target) is not None]
            if not scored:
                continue
            measured = [float(r.target(target)) for r in scored]
            row = {
                "space": args.space,
                "size": size,
                "platform": platform,
                "target": target,
                "test_size": len(scored),
                "mape": mape(measured, predictor.predict_records(scored, target)),
                "best_epoch": model.train_result_.best_epoch,
                "epochs": args.epochs,
            }
            rows.append(row)
            with path.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    return rows


def plot(rows: list[dict[str, object]], out: Path) -> None:
    """``learning_curve.png``: test MAPE against training graphs, a line per head."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    keys = sorted({(r["space"], r["platform"], r["target"]) for r in rows})
    for space, platform, target in keys:
        line = sorted(
            (r["size"], r["mape"] * 100)
            for r in rows
            if (r["space"], r["platform"], r["target"]) == (space, platform, target)
        )
        kind = "NPU" if "vela" in platform else "CPU"
        ax.plot(*zip(*line, strict=True), marker="o", label=f"{space} {kind} {target}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training graphs (validation included)")
    ax.set_ylabel("test MAPE %")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=100)
    plt.close(fig)


def main() -> None:
    """Parse the options, train, plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="Database URL.")
    parser.add_argument("--space", required=True, help="The design space (zoo family).")
    parser.add_argument("--graphs", type=int, default=200, help="Graphs of the space to use.")
    parser.add_argument("--sizes", required=True, help="Training graphs, comma-separated.")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    plot(curve(args), args.out)


if __name__ == "__main__":
    main()
