"""Benchmark: does nnlat's LiteRT backend measure what a bare ``Interpreter.invoke()`` loop does?

Run:  taskset -c 0 python benchmarks/litert_overhead.py [--rounds 5]

Models (converted offline from Keras definitions, random weights, nothing downloaded):
the corpus CNN of ``nnlat.testing.tflite_models`` and a MobileNetV2 (alpha 0.35, 96×96),
each as float32 and as fully int8. For each, alternates ``nnlat.measure`` on the 1-thread
LiteRT platform of the model's precision with a bare loop written the way a user would:
one ``Interpreter(num_threads=1)``, inputs set once, 10 warm-up invokes, then ``--runs``
invokes each timed with ``time.perf_counter``. Prints the median of each method's
medians and their relative difference (target: within 5 %).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np

from nnlat.graph import load
from nnlat.measure.backends.litert import LiteRtBackend, model_precision
from nnlat.measure.runner import measure
from nnlat.measure.types import MeasureSpec
from nnlat.testing.tflite_models import tflite_model


def mobilenet_v2(quantization: str) -> bytes:
    """MobileNetV2 (alpha 0.35, 96×96, random weights) converted like the test corpus."""
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.applications.MobileNetV2(
        input_shape=(96, 96, 3), alpha=0.35, weights=None, classes=10
    )
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantization == "int8":
        rng = np.random.default_rng(0)

        def calibration() -> Any:
            for _ in range(8):
                yield [rng.standard_normal((1, 96, 96, 3)).astype(np.float32)]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = calibration
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    return bytes(converter.convert())


def bare_loop(data: bytes, runs: int) -> float:
    """Median ms of ``runs`` plain ``invoke()`` calls after 10 warm-up invokes."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_content=data, num_threads=1)
    interpreter.allocate_tensors()
    rng = np.random.default_rng(0)
    for detail in interpreter.get_input_details():
        shape, dtype = detail["shape"], detail["dtype"]
        if np.issubdtype(dtype, np.integer):
            array = rng.integers(-128, 127, size=shape).astype(dtype)
        else:
            array = rng.standard_normal(shape).astype(dtype)
        interpreter.set_tensor(detail["index"], array)
    for _ in range(10):
        interpreter.invoke()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        interpreter.invoke()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=300, help="timed runs of the bare loop")
    args = parser.parse_args()
    models = {
        "corpus cnn fp32": tflite_model("cnn", "float"),
        "corpus cnn int8": tflite_model("cnn", "int8"),
        "mobilenet_v2 0.35 96 fp32": mobilenet_v2("float"),
        "mobilenet_v2 0.35 96 int8": mobilenet_v2("int8"),
    }
    spec = MeasureSpec(max_time_s=5.0)
    backend = LiteRtBackend()
    print(f"{args.rounds} alternating rounds per model\n")
    print("| model | platform | nnlat median ms (n) | bare loop median ms | difference |")
    print("|---|---|---|---|---|")
    for label, data in models.items():
        graph = load(data)
        platform = backend.platform(1, model_precision(graph))
        ours: list[float] = []
        bare: list[float] = []
        runs: list[int] = []
        for _ in range(args.rounds):
            result = measure(graph, platform, spec)
            assert result.stats is not None, result.error
            ours.append(result.stats.median_ms)
            runs.append(result.stats.n)
            bare.append(bare_loop(data, args.runs))
        a, b = statistics.median(ours), statistics.median(bare)
        print(
            f"| {label} | {platform.name} | {a:.4f} ({int(statistics.median(runs))}) "
            f"| {b:.4f} | {(a - b) / b:+.1%} |"
        )


if __name__ == "__main__":
    main()
