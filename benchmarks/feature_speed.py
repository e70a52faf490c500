"""Benchmark: how long does ``raw_features`` take per graph?

Run:  taskset -c 0 python benchmarks/feature_speed.py [--graphs 100] [--passes 7] [--profile]

Times :func:`nnlat.features.raw_features` (costs, kernels, per-node features) on
``--graphs`` NAS-Bench-201 graphs (~110–130 nodes) and on 20 copies of the zoo's
ResNet-50, and prints, per graph, the median over ``--passes`` passes of the mean
wall time, and of the mean CPU time of this thread (``time.thread_time``: unlike wall
time, it leaves out what other processes on the same core take).

Every pass runs on graphs rebuilt from their stored ONNX bytes (untimed), so nothing an
earlier call cached on the IR objects is reused: the first call on a graph, as when
predicting graphs seen for the first time. ``--profile`` prints the top functions of one
NAS-Bench-201 pass (cProfile).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import time

import onnx

from nnlat.features import raw_features
from nnlat.graph.ir import Graph
from nnlat.graph.onnx_io import model_to_ir
from nnlat.zoo import get_family
from nnlat.zoo.generate import generate_variants

RESNET50_COPIES = 20


def rebuilt(graphs: list[Graph]) -> list[Graph]:
    """Fresh IR objects for ``graphs`` (no cached properties filled in)."""
    return [model_to_ir(onnx.load_from_string(g.onnx_bytes)) for g in graphs]


def ms_per_graph(graphs: list[Graph]) -> tuple[float, float]:
    """Mean wall and CPU time of one ``raw_features`` call over ``graphs``, in ms."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.thread_time()
    for graph in graphs:
        raw_features(graph)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    return wall * 1000 / len(graphs), cpu * 1000 / len(graphs)


def measure(graphs: list[Graph], passes: int) -> tuple[float, float]:
    """Median wall and CPU ms/graph over ``passes`` passes, each on fresh graphs."""
    ms_per_graph(rebuilt(graphs))  # warm-up: first-call imports and allocations
    samples = [ms_per_graph(rebuilt(graphs)) for _ in range(passes)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--graphs", type=int, default=100, help="NAS-Bench-201 graphs")
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    nb201 = [v.graph for v in generate_variants("nasbench201", args.graphs, seed=1)]
    family = get_family("resnet")
    resnet50 = family.model(family.canonical["resnet50"]).to_graph()
    inputs = {
        f"NAS-Bench-201 ({len(nb201)} graphs)": nb201,
        f"zoo resnet50 ({len(resnet50.nodes)} nodes, {RESNET50_COPIES} copies)": [resnet50]
        * RESNET50_COPIES,
    }
    nodes = statistics.mean(len(g.nodes) for g in nb201)
    print(f"NAS-Bench-201: {nodes:.0f} nodes per graph on average\n")
    print("| graphs | wall ms/graph | CPU ms/graph | graphs/s (CPU) |")
    print("|---|---|---|---|")
    for label, graphs in inputs.items():
        wall, cpu = measure(graphs, args.passes)
        print(f"| {label} | {wall:.3f} | {cpu:.3f} | {1000 / cpu:,.0f} |")
    if args.profile:
        fresh = rebuilt(nb201)
        with cProfile.Profile() as profile:
            for graph in fresh:
                raw_features(graph)
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
