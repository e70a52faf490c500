"""Benchmark: does a model measured again in a fresh process give the same median?

Run:  taskset -c 0 python benchmarks/repeatability.py [--processes 5]

Exports a few zoo models, then runs ``nnlat query MODEL --refresh --json`` for each of
them in ``--processes`` fresh processes (default protocol, reference platform, a
throw-away database). Prints each process's median and the largest deviation of any of
them from the median of all: the figure the 3 % target is about.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx

from nnlat.zoo import get_family

MODELS = {
    "resnet18": ("resnet", "resnet18"),
    "mobilenet_v2": ("mobilenetv2", "mobilenet_v2"),
    "squeezenet1_1": ("squeezenet", "squeezenet1_1"),
}


def query_in_fresh_process(path: Path, db: str) -> float:
    """The median ms reported by ``nnlat query --refresh`` run in a new interpreter."""
    command = [sys.executable, "-m", "nnlat", "query", str(path), "--refresh", "--json"]
    env = {**os.environ, "NNLAT_DB_URL": db}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return float(json.loads(done.stdout)["latency_ms"]["median"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processes", type=int, default=5)
    args = parser.parse_args()
    print("| model | median of each process, ms | median of all | largest deviation |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'repeat.sqlite'}"
        for label, (family, config) in MODELS.items():
            spec = get_family(family)
            path = Path(tmp) / f"{label}.onnx"
            onnx.save(spec.model(spec.canonical[config]).to_onnx(), path)
            medians = [query_in_fresh_process(path, db) for _ in range(args.processes)]
            centre = statistics.median(medians)
            worst = max(abs(m - centre) / centre for m in medians)
            each = ", ".join(f"{m:.3f}" for m in medians)
            print(f"| {label} | {each} | {centre:.3f} | {worst * 100:.2f} % |")


if __name__ == "__main__":
    main()
