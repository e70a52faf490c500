"""Benchmark: how fast does a predictor answer?

Run:  taskset -c 0 python benchmarks/predict_speed.py [--predictor DIR] [--graphs 1000]

1. One ResNet-50-sized ONNX file to a prediction (``nnlat.predict``: load, normalise,
   features, network), for the weight-free zoo ResNet-50 and for a 102 MB ResNet-50
   with its weights; median / p90 of ``--repeats`` calls after one warm-up.
2. Batched prediction of NAS-Bench-201 graphs (``Predictor.predict_raw``), from graphs
   already loaded: features + network, and the network alone on cached features;
   graphs per second.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from graph_load import LIGHT, timed, with_weights, zoo_resnet50

from nnlat.features import raw_features
from nnlat.predictor.api import load_predictor, predict
from nnlat.zoo.generate import generate_variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--predictor", default=None, help="default: the shipped predictor")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--graphs", type=int, default=1000)
    args = parser.parse_args()
    predictor = load_predictor(args.predictor)
    platform = predictor.platforms[0]
    print(f"predictor platforms {predictor.platforms}; predicting on {platform}\n")
    print("| input | median ms | p90 ms |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {
            "zoo resnet50 file (weight-free)": zoo_resnet50(Path(tmp) / "zoo.onnx"),
            "resnet50 file with weights (102 MB)": with_weights(LIGHT, Path(tmp) / "w.onnx"),
        }
        for label, path in inputs.items():
            samples = timed(lambda p=path: predict(p, platform, predictor=predictor), args.repeats)
            p90 = statistics.quantiles(samples, n=10)[-1]
            print(f"| {label} | {statistics.median(samples):.1f} | {p90:.1f} |")
    graphs = [v.graph for v in generate_variants("nasbench201", args.graphs, seed=1)]
    start = time.perf_counter()
    raws = [raw_features(g) for g in graphs]
    predictor.predict_raw(raws, platform)
    with_features = time.perf_counter() - start
    predictor.predict_raw(raws, platform)  # warm
    start = time.perf_counter()
    predictor.predict_raw(raws, platform)
    network_only = time.perf_counter() - start
    print(
        f"\n{len(graphs)} NAS-Bench-201 graphs, batched: features + network "
        f"{len(graphs) / with_features:,.0f} graphs/s; network alone on cached features "
        f"{len(graphs) / network_only:,.0f} graphs/s"
    )


if __name__ == "__main__":
    main()
