"""Choose the real-world recipe on held-out corpus families (issue 33), never on shipped models.

Run:

    python scripts/realworld_select.py --db URL --out reports/realworld/selection \\
        [--platform P] [--methods kernel-profiled,xgboost,nnlp] [--epochs 40] [--groups ...]

Each *group* of families (by default the three folds of :data:`FOLDS`; ``--groups``
takes others, families joined by ``+``) is held out in turn; every method is trained
on all the other records of the platform (zoo and corpus, never a real-world record)
and predicts the held-out group. Real-world models are new families, so this is the
closest validation there is to the shipped-model test set, and it does not look at it.
Also reported: the geometric mean of every pair of methods (an ensemble of two different
biases). Results are written per group as they finish (``results.jsonl``, resumable) and
summarised in ``README.md``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import sys
import time
from pathlib import Path

import numpy as np
from records_file import read_records, write_records

from nnlat.datasets.training import default_cache_dir, load_records
from nnlat.features.records import REAL_WORLD
from nnlat.predictor.metrics import acc_within, mape
from nnlat.predictor.training import TrainSettings
from nnlat.store import Store
from nnlat.studies.methods import METHODS, MethodContext

# Three folds of families, each holding corpus families of every kind and zoo families:
# every record is predicted once by a model that never saw its family. Fixed before any
# result was seen (grouped by kind, sizes balanced roughly).
FOLDS = (
    "hf-text+det-head+int8-qdq+alexnet+vgg+nasbench201+vit+fbnet",
    "hf-vision+ocr-crnn+int8-dynamic+googlenet+squeezenet+mobilenetv3+tinynet+randdag",
    "hf-speech+audio-frontend+rnn-control-flow+resnet+mobilenetv2+mnasnet+efficientnet"
    "+seqnet+segnet",
)


def summary(measured: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    """MAPE, Acc(10 %) and Acc(25 %), in percent."""
    return {
        "mape": 100 * mape(measured, predicted),
        "acc10": 100 * acc_within(measured, predicted, 0.10),
        "acc25": 100 * acc_within(measured, predicted, 0.25),
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="the measurement database (or --records)")
    parser.add_argument("--out", type=Path, default=Path("reports/realworld/selection"))
    parser.add_argument("--platform", default="epyc-ort1.32-fp32-t1")
    parser.add_argument("--methods", default="kernel-profiled,xgboost,nnlp")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--groups", nargs="+", default=list(FOLDS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="(group, method) runs in parallel")
    parser.add_argument(
        "--records", type=Path, help="read the records from this file instead of --db"
    )
    args = parser.parse_args(argv)

    if args.records:  # realworld_study.py --dump-records: for a machine without the DB
        records = read_records(args.records)
    else:
        with Store.open(args.db) as store:
            records = load_records(
                store, [args.platform], cache_dir=default_cache_dir(), cached_only=True
            )
    records = [r for r in records if r.source != REAL_WORLD and r.platform == args.platform]
    print(f"{len(records)} records, {sum(r.node_shares is not None for r in records)} profiled")
    args.out.mkdir(parents=True, exist_ok=True)
    results_path = args.out / "results.jsonl"
    done = (
        {
            (row["group"], row["method"])
            for row in map(json.loads, results_path.read_text().splitlines())
        }
        if results_path.exists()
        else set()
    )
    settings = TrainSettings(epochs=args.epochs, seed=args.seed)
    runs = [
        (group, method)
        for group in args.groups
        for method in args.methods.split(",")
        if (group, method) not in done and any(r.family in group.split("+") for r in records)
    ]
    if args.jobs > 1:
        # Spawned, not forked: a child of a process that has touched CUDA cannot use it
        # (seen on a lent GPU: "CUDA error: initialization error"). Each child reads the
        # records from a file once.
        import multiprocessing
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = args.records or Path(tmp) / "records.pkl.gz"
            if not args.records:
                write_records(path, records)
            context = multiprocessing.get_context("spawn")
            start = (path, settings, args.platform)
            with context.Pool(args.jobs, _start_worker, start) as pool:
                for row in pool.imap_unordered(_one_run, runs):
                    _write(results_path, row)
    else:
        _start_worker(None, settings, args.platform, records)
        for run in runs:
            _write(results_path, _one_run(run))
    render(
        results_path,
        args.out / "README.md",
        "python scripts/realworld_select.py " + shlex.join(argv),
    )


_RECORDS: list = []  # type: ignore[type-arg]
_SETTINGS = TrainSettings()


def _start_worker(
    path: Path | None,
    settings: TrainSettings,
    platform: str,
    records: list | None = None,  # type: ignore[type-arg]
) -> None:
    """Give this process the platform's records (read from ``path`` unless given)."""
    global _RECORDS, _SETTINGS
    every = records if records is not None else read_records(path)  # type: ignore[arg-type]
    _RECORDS = [r for r in every if r.platform == platform and r.source != REAL_WORLD]
    _SETTINGS = settings


def _one_run(run: tuple[str, str]) -> dict:  # type: ignore[type-arg]
    """Train ``method`` without ``group``'s families, predict them: one results row."""
    import torch

    torch.set_num_threads(1)
    group, method = run
    families = set(group.split("+"))
    train = [r for r in _RECORDS if r.family not in families]
    test = [r for r in _RECORDS if r.family in families]
    start = time.monotonic()
    context = MethodContext(settings=_SETTINGS)
    predicted = METHODS.get(method).build(context).fit(train).predict(test)
    return {
        "group": group,
        "method": method,
        "seconds": round(time.monotonic() - start, 1),
        "cpu": os.cpu_count(),
        "hashes": [r.graph_hash for r in test],
        "measured": [r.latency_ms for r in test],
        "predicted": [float(v) for v in predicted],
    }


def _write(results_path: Path, row: dict) -> None:  # type: ignore[type-arg]
    with results_path.open("a") as f:
        f.write(json.dumps(row) + "\n")
    measured = np.array(row["measured"])
    print(row["group"], row["method"], summary(measured, np.array(row["predicted"])), flush=True)


def render(results_path: Path, out: Path, command: str) -> None:
    """The per-group and pooled table of every method and every pair's geometric mean."""
    rows = [json.loads(line) for line in results_path.read_text().splitlines()]
    by = {(r["group"], r["method"]): r for r in rows}
    groups = list(dict.fromkeys(r["group"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    names = [*methods, *(f"{a}×{b}" for a, b in itertools.combinations(methods, 2))]

    def predicted(group: str, name: str) -> np.ndarray | None:
        parts = name.split("×")
        if any((group, m) not in by for m in parts):
            return None
        logs = [np.log(np.array(by[group, m]["predicted"])) for m in parts]
        return np.exp(np.mean(logs, axis=0))

    lines = [
        "# Recipe selection on held-out corpus families (issue 33)",
        "",
        f"Command: `{command}`",
        "",
        "Each group held out in turn; trained on every other zoo and corpus record of the",
        "platform. MAPE % / Acc(10 %) % / Acc(25 %) %; *pooled* is over every held-out",
        "record, *mean* the unweighted mean of the groups' MAPE. `a×b` is the geometric",
        "mean of two methods' predictions.",
        "",
        "| method | " + " | ".join(groups) + " | pooled | mean MAPE |",
        "|---|" + "---|" * (len(groups) + 2),
    ]
    for name in names:
        cells, pooled_m, pooled_p, mapes = [], [], [], []
        for group in groups:
            p = predicted(group, name)
            if p is None:
                cells.append("–")
                continue
            m = np.array(by[group, name.split("×")[0]]["measured"])
            s = summary(m, p)
            cells.append(f"{s['mape']:.1f} / {s['acc10']:.0f} / {s['acc25']:.0f}")
            pooled_m.append(m)
            pooled_p.append(p)
            mapes.append(s["mape"])
        if not pooled_m:
            continue
        s = summary(np.concatenate(pooled_m), np.concatenate(pooled_p))
        pooled = f"{s['mape']:.1f} / {s['acc10']:.0f} / {s['acc25']:.0f}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {pooled} | {np.mean(mapes):.1f} |")
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main(sys.argv[1:])
