"""Benchmark: what an ``STFT`` costs in onnxruntime by frame length (the cost rule's basis).

Run:  taskset -c 0 python benchmarks/stft_lengths.py [--runs 50]

One-node ONNX models (opset 17): an ``STFT`` of 16,000 samples, a Hann window of N points,
a hop of 160, one-sided, on one thread. For each N it prints the median time, the frame
count and the time per frame (the best of ``--runs``, which resists a busy other core
better than the median) against ``nnlat.graph.cost``'s flops per frame: a power of two
is a complex radix-2 FFT (5·N·log2 N); any other length Bluestein's transform, two FFTs
of the next power of two M ≥ 2N - 1. If the rule holds, ``ns per kflop`` is about
constant down the column.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from nnlat.graph import graph_cost, load

SAMPLES, HOP = 16000, 160
LENGTHS = (256, 300, 400, 511, 512, 520, 700, 1024)


def stft_model(window: int) -> bytes:
    """The one-node STFT model of ``window``-point frames."""
    signal = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, SAMPLES, 1])
    node = helper.make_node("STFT", ["x", "step", "window"], ["y"], onesided=1)
    graph = helper.make_graph(
        [node], "stft", [signal], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    )
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array(HOP, np.int64), "step"),
            numpy_helper.from_array(np.hanning(window).astype(np.float32), "window"),
        ]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model).SerializeToString()


def main() -> None:
    """Time each length; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="Timed runs per length.")
    args = parser.parse_args()
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    signal = np.random.default_rng(0).standard_normal((1, SAMPLES, 1)).astype(np.float32)
    print(f"onnxruntime {ort.__version__}")
    print("| N | frames | best ms | µs per frame | kflop per frame (rule) | ns per kflop |")
    print("|---|---|---|---|---|---|")
    for window in LENGTHS:
        model = stft_model(window)
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        for _ in range(5):
            session.run(None, {"x": signal})
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            session.run(None, {"x": signal})
            times.append(time.perf_counter() - start)
        frames = (SAMPLES - window) // HOP + 1
        best_ms = 1e3 * min(times)
        kflop = graph_cost(load(model)).flops / frames / 1e3
        per_frame_us = 1e3 * best_ms / frames
        print(
            f"| {window} | {frames} | {best_ms:.3f} | {per_frame_us:.2f} | {kflop:.1f} |"
            f" {1e3 * per_frame_us / kflop:.2f} |"
        )


if __name__ == "__main__":
    main()
