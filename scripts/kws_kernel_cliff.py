"""Why cnn-kws fails on LiteRT: one depthwise window takes XNNPACK's slow path.

Two tables, as Markdown:

1. From a LiteRT data file (``nnlat db export`` format): the cnn-kws models grouped by
   whether a depthwise layer has each (time, frequency) window, with the median time per
   FLOP and heap bytes per parameter of each group. A window whose group stands apart in
   both is a runtime cliff, not noise. Then how far that explains the latency: a linear
   model on the FLOPs of each kind of layer (first convolution, depthwise, pointwise),
   with and without the 7×5 depthwise layers' FLOPs as a column of their own, fitted by
   relative least squares on the first 80 % of the models in file order and scored on
   the last 20 % (an analysis: the 7×5 column was chosen by looking at all the models).
2. A micro-benchmark: one-layer keyword spotters (first convolution 64 × (10, 4), one
   depthwise-separable layer of 128 channels) for each window, int8, timed in this
   process with LiteRT's default op resolver (XNNPACK) and without its default delegates
   (TFLite's built-in kernels): median of 200 invokes after 20, in ms. One thread; pin it
   (``taskset -c 1``) and keep the core quiet.

Usage:
    taskset -c 1 python scripts/kws_kernel_cliff.py data/edge-litert-xeon.jsonl.gz \
        data/edge-litert-heap-xeon.jsonl.gz
"""

from __future__ import annotations

import collections
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from nnlat.zoo.edge.cnn_kws import FREQ_KERNELS, TIME_KERNELS, KwsConfig, Layer
from nnlat.zoo.registry import get_family

sys.path.insert(0, str(Path(__file__).parent))
from edge_target_ranks import models


def kws_measured(path: str) -> Iterator[tuple[dict, dict]]:
    """(model, its first ok measurement) of every measured cnn-kws model of a data file."""
    for row in models(path):
        ok = [m for m in row["measurements"] if m["status"] == "ok"]
        if row.get("family") == "cnn-kws" and ok:
            yield row, ok[0]


def data_table(path: str) -> None:
    """Median ns per FLOP and heap bytes per parameter, by depthwise window present."""
    groups: dict[tuple[int, int], list[tuple[float, float]]] = collections.defaultdict(list)
    for row, m in kws_measured(path):
        if not m["peak_memory_bytes"]:
            continue
        cost = (
            m["stats"]["median_ms"] * 1e6 / row["flops"],
            m["peak_memory_bytes"] / row["params"],
        )
        for window in {tuple(layer["kernel"]) for layer in row["zoo_spec"]["config"]["layers"]}:
            groups[window].append(cost)
    print(f"`{path}`, cnn-kws models holding a depthwise layer of each window:\n")
    print("| window | models | median ns / FLOP | median heap bytes / parameter |")
    print("|---|---|---|---|")
    for window in sorted(groups):
        costs = np.array(groups[window])
        print(
            f"| {window[0]}×{window[1]} | {len(costs)} | {np.median(costs[:, 0]):.3f} "
            f"| {np.median(costs[:, 1]):.1f} |"
        )


def flops_by_kind(row: dict) -> list[float]:
    """[1, first convolution, depthwise but 7×5, pointwise, 7×5 depthwise] FLOPs of a
    cnn-kws model; the rest of ``row["flops"]`` (pooling, classifier) goes with the first."""
    config = row["zoo_spec"]["config"]
    positions = 25 * 5  # the map after the stride-2 first convolution of 49 × 10
    channels, depthwise, pointwise, cliff = config["first_channels"], 0, 0, 0
    for layer in config["layers"]:
        flops = 2 * positions * channels * layer["kernel"][0] * layer["kernel"][1]
        if tuple(layer["kernel"]) == (7, 5):
            cliff += flops
        else:
            depthwise += flops
        pointwise += 2 * positions * channels * layer["channels"]
        channels = layer["channels"]
    return [1.0, row["flops"] - depthwise - pointwise - cliff, depthwise, pointwise, cliff]


def linear_table(path: str) -> None:
    """Test MAPE of the FLOPs-by-kind line, without and with the 7×5 column."""
    rows = [(flops_by_kind(row), m["stats"]["median_ms"]) for row, m in kws_measured(path)]
    features = np.array([r[0] for r in rows])
    latency = np.array([r[1] for r in rows])
    train = np.arange(len(rows)) < int(0.8 * len(rows))
    fitted, scored = int(train.sum()), int((~train).sum())
    print(f"\nLatency by FLOPs of each layer kind, {fitted} fitted, {scored} scored:\n")
    print("| columns | test MAPE | median APE |")
    print("|---|---|---|")
    for name, columns in (
        ("first, depthwise, pointwise", [0, 1, 2, 3]),
        ("… and 7×5 depthwise", [0, 1, 2, 3, 4]),
    ):
        relative = features[train][:, columns] / latency[train, None]
        coefficients, *_ = np.linalg.lstsq(relative, np.ones(int(train.sum())), rcond=None)
        errors = np.abs(features[~train][:, columns] @ coefficients / latency[~train] - 1)
        print(f"| {name} | {100 * errors.mean():.1f} % | {100 * np.median(errors):.1f} % |")


def invoke_ms(path: Path, resolver: object) -> float:
    """Median ms of 200 invokes after 20, one thread, zeros in."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(
        model_path=str(path), num_threads=1, experimental_op_resolver_type=resolver
    )
    interpreter.allocate_tensors()
    detail = interpreter.get_input_details()[0]
    interpreter.set_tensor(detail["index"], np.zeros(detail["shape"], detail["dtype"]))
    for _ in range(20):
        interpreter.invoke()
    times = []
    for _ in range(200):
        start = time.perf_counter()
        interpreter.invoke()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def benchmark_table() -> None:
    """One-layer spotters, each window, with and without XNNPACK."""
    from ai_edge_litert.interpreter import OpResolverType

    family = get_family("cnn-kws")
    folder = Path(tempfile.mkdtemp(prefix="kws-cliff-"))
    print("\nOne-layer spotters (64 × (10, 4) first, one 128-channel layer), int8, ms:\n")
    print("| window | LiteRT default (XNNPACK) | built-in kernels only |")
    print("|---|---|---|")
    for window in [(t, f) for t in TIME_KERNELS for f in FREQ_KERNELS]:
        config = KwsConfig(49, 10, 12, 64, (10, 4), (Layer(128, window),))
        path = folder / f"dw{window[0]}x{window[1]}.tflite"
        path.write_bytes(family.model(config.to_config()).to_tflite())
        auto = invoke_ms(path, OpResolverType.AUTO)
        builtin = invoke_ms(path, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        print(f"| {window[0]}×{window[1]} | {auto:.3f} | {builtin:.3f} |", flush=True)


if __name__ == "__main__":
    for data in sys.argv[1:]:
        data_table(data)
        linear_table(data)
        print()
    benchmark_table()
