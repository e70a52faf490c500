"""Benchmark: load + IR + costs + hash of a ResNet-50-sized ONNX model.

Run:  python benchmarks/graph_load.py [--repeats 30]

Three inputs: the onnx wheel's weight-free ResNet-50 (weights as ConstantOfShape), the
same graph with its 25.6 M float32 weights materialised as initializers (a ~100 MB file,
what users usually have), and the zoo's ResNet-50 exported from PyTorch (weight-free).
Prints a Markdown table of the median / p90 wall time per step, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from nnlat.graph import graph_cost, graph_key, load, split_kernels

LIGHT = Path(onnx.__file__).parent / "backend/test/data/light/light_resnet50.onnx"


def with_weights(path: Path, out: Path) -> Path:
    """Rewrite ConstantOfShape weights as real random initializers."""
    model = onnx.load(path)
    shapes = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    rng = np.random.default_rng(0)
    kept = []
    for node in model.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in shapes:
            dims = shapes[node.input[0]].tolist()
            data = rng.standard_normal(dims).astype(np.float32)
            model.graph.initializer.append(numpy_helper.from_array(data, node.output[0]))
        else:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    onnx.save(model, out)
    return out


def zoo_resnet50(out: Path) -> Path:
    from nnlat.zoo import get_family

    family = get_family("resnet")
    onnx.save(family.model(family.canonical["resnet50"]).to_onnx(), out)
    return out


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    fn()  # warm-up: first-call imports
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {
            "light_resnet50 (weight-free, opset 9)": LIGHT,
            "resnet50 + 25.6 M weights (102 MB file)": with_weights(LIGHT, Path(tmp) / "w.onnx"),
            "zoo resnet50 (torch export, opset 17)": zoo_resnet50(Path(tmp) / "zoo.onnx"),
        }
        print("| model | file | load + IR | costs | hash | kernels | total median | total p90 |")
        print("|---|---|---|---|---|---|---|---|")
        for label, path in inputs.items():
            graph = load(path)
            steps = {
                "load": timed(lambda p=path: load(p), args.repeats),
                "cost": timed(lambda g=graph: graph_cost(g), args.repeats),
                "hash": timed(lambda g=graph: graph_key(g), args.repeats),
                "kernels": timed(lambda g=graph: split_kernels(g), args.repeats),
            }
            total = timed(
                lambda p=path: (lambda g: (graph_cost(g), graph_key(g), split_kernels(g)))(load(p)),
                args.repeats,
            )
            q = statistics.quantiles(total, n=10)
            size = path.stat().st_size / 1e6
            cells = " | ".join(f"{statistics.median(v):.1f}" for v in steps.values())
            print(
                f"| {label} | {size:.2f} MB | {cells} | "
                f"{statistics.median(total):.1f} | {q[-1]:.1f} |"
            )


if __name__ == "__main__":
    main()
