"""Benchmark: does the measurement protocol change the number it measures?

Run:  taskset -c 0 python benchmarks/protocol_overhead.py [--rounds 5]

For a few zoo models, alternates ``nnlat.measure`` on the reference platform (1-thread
onnxruntime fp32) with a bare timing loop written the way a user would: one
``InferenceSession`` with one intra-op thread, the same weights and inputs, 10 warm-up
runs, then ``--runs`` calls of ``session.run`` each timed with ``time.perf_counter``.
Alternating (nnlat, bare, nnlat, bare, ...) spreads drift in the machine over both.
Prints the median of each method's medians and their relative difference.
"""

from __future__ import annotations

import argparse
import statistics
import time

import onnxruntime as ort

from nnlat.measure.inputs import materialize_weights, random_inputs
from nnlat.measure.runner import measure, reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.zoo import get_family

MODELS = {
    "resnet18": ("resnet", "resnet18"),
    "mobilenet_v2": ("mobilenetv2", "mobilenet_v2"),
    "squeezenet1_1": ("squeezenet", "squeezenet1_1"),
}


def bare_loop(graph, runs: int) -> float:  # type: ignore[no-untyped-def]
    """Median ms of ``runs`` plain ``session.run`` calls after 10 warm-up runs."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    weights = materialize_weights(graph.onnx_bytes, seed=0).SerializeToString()
    session = ort.InferenceSession(weights, options, providers=["CPUExecutionProvider"])
    feed = random_inputs(graph, 0)
    for _ in range(10):
        session.run(None, feed)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feed)
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=100, help="timed runs of the bare loop")
    args = parser.parse_args()
    platform = reference_platform().name
    spec = MeasureSpec(max_time_s=5.0)
    print(f"platform {platform}; {args.rounds} alternating rounds per model\n")
    print("| model | nnlat median ms (n) | bare loop median ms | difference |")
    print("|---|---|---|---|")
    for label, (family, config) in MODELS.items():
        spec_family = get_family(family)
        graph = spec_family.model(spec_family.canonical[config]).to_graph()
        ours, bare, runs = [], [], []
        for _ in range(args.rounds):
            result = measure(graph, platform, spec)
            assert result.stats is not None, result.error
            ours.append(result.stats.median_ms)
            runs.append(result.stats.n)
            bare.append(bare_loop(graph, args.runs))
        a, b = statistics.median(ours), statistics.median(bare)
        print(
            f"| {label} | {a:.3f} ({statistics.median(runs):.0f}) | {b:.3f} | "
            f"{(a - b) / b * 100:+.2f} % |"
        )


if __name__ == "__main__":
    main()
