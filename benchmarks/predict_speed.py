"""Benchmark: how fast does a predictor answer?

Run:  python benchmarks/predict_speed.py [--predictor DIR] [--graphs 1000] [--passes 3] [--core 0]
      [--cache FILE] [--files-only]

To compare two versions of nnlat on one host (its speed drifts from hour to hour), run
this script against each checkout's sources in turn: ``PYTHONPATH=CHECKOUT/src python
benchmarks/predict_speed.py --files-only``.

Run it without ``taskset`` (or with every core it may use): the one-core rows pin the
process to ``--core`` themselves (CPU affinity, one torch thread); the all-core rows use
every core the process was allowed at start (feature workers, torch threads).

1. One ResNet-50-sized ONNX file to a prediction (``nnlat.predict``: load, normalise,
   features, network), for the weight-free zoo ResNet-50 and for a 102 MB ResNet-50
   with its weights; median / p90 of ``--repeats`` calls after one warm-up; one core.
2. Batched prediction of ``--graphs`` NAS-Bench-201 graphs, graphs per second, median
   of ``--passes`` passes (min–max in brackets): (a) features in-process, then the
   network (``Predictor.predict_raw``), one core; (b) features on all cores in forked
   workers, all first (``raw_features_many``) or streamed into the network as they come
   (``Predictor.predict_graphs``); (c) the network alone on cached features, one core
   and all cores (torch threads); and ``nnlat.predictor.api.predict_many`` end to end
   (load, features, network) on the same graphs as ONNX bytes, one core and all cores.
   Every pass of (a) and (b) starts from graphs rebuilt from their ONNX bytes (untimed),
   so nothing cached on the IR objects is reused.
"""

from __future__ import annotations

import argparse
import os
import statistics
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import onnx
import torch
from graph_load import LIGHT, timed, with_weights, zoo_resnet50

import nnlat
from nnlat.features import raw_features
from nnlat.features.parallel import raw_features_many
from nnlat.graph.ir import Graph
from nnlat.graph.onnx_io import model_to_ir
from nnlat.predictor import Predictor
from nnlat.predictor.api import load_predictor, predict, predict_many
from nnlat.zoo.generate import generate_variants


def use_cores(cores: set[int]) -> str:
    """Run on ``cores`` from now on (affinity and torch threads); a label for the table."""
    os.sched_setaffinity(0, cores)
    torch.set_num_threads(len(cores))
    return f"{len(cores)} ({','.join(map(str, sorted(cores)))})"


def rebuilt(graphs: list[Graph]) -> list[Graph]:
    """Fresh IR objects for ``graphs`` (no cached properties filled in)."""
    return [model_to_ir(onnx.load_from_string(g.onnx_bytes)) for g in graphs]


def rate(
    run: Callable[[list[Graph]], object], graphs: list[Graph], passes: int, fresh: bool = True
) -> str:
    """Graphs per second of ``run(graphs)``: median (min–max) over ``passes`` passes.

    With ``fresh``, every pass gets graphs rebuilt from their bytes (untimed).
    """
    rates = []
    for _ in range(passes):
        inputs = rebuilt(graphs) if fresh else graphs
        start = time.perf_counter()
        run(inputs)
        rates.append(len(graphs) / (time.perf_counter() - start))
    return f"{statistics.median(rates):,.0f} ({min(rates):,.0f}–{max(rates):,.0f})"


def nasbench201_graphs(count: int, cache: Path | None) -> list[Graph]:
    """``count`` NAS-Bench-201 graphs (seed 1), kept as ONNX in ``cache`` between runs.

    Exporting them takes minutes; the cache file holds each graph's ONNX bytes behind an
    8-byte length, so a rerun only parses them.
    """
    if cache is not None and cache.is_file():
        data, models, at = cache.read_bytes(), [], 0
        while at < len(data):
            (size,) = struct.unpack_from("<Q", data, at)
            models.append(data[at + 8 : at + 8 + size])
            at += 8 + size
        if len(models) == count:
            return [model_to_ir(onnx.load_from_string(m)) for m in models]
    graphs = [v.graph for v in generate_variants("nasbench201", count, seed=1)]
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        blob = b"".join(struct.pack("<Q", len(g.onnx_bytes)) + g.onnx_bytes for g in graphs)
        cache.write_bytes(blob)
    return graphs


def single_files(predictor: Predictor, platform: str, repeats: int) -> None:
    print("| input | median ms | p90 ms |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {
            "zoo resnet50 file (weight-free)": zoo_resnet50(Path(tmp) / "zoo.onnx"),
            "resnet50 file with weights (102 MB)": with_weights(LIGHT, Path(tmp) / "w.onnx"),
        }
        for label, path in inputs.items():
            samples = timed(lambda p=path: predict(p, platform, predictor=predictor), repeats)
            p90 = statistics.quantiles(samples, n=10)[-1]
            print(f"| {label} | {statistics.median(samples):.1f} | {p90:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--predictor", default=None, help="default: the shipped predictor")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--graphs", type=int, default=1000)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--core", type=int, default=None, help="default: the first allowed")
    parser.add_argument(
        "--cache",
        default=str(Path(tempfile.gettempdir()) / "nnlat-bench-nasbench201.bin"),
        help="where the generated graphs are kept between runs ('' to regenerate)",
    )
    parser.add_argument("--files-only", action="store_true", help="only the ResNet-50 files")
    args = parser.parse_args()
    every = os.sched_getaffinity(0)
    one = {min(every) if args.core is None else args.core}
    predictor = load_predictor(args.predictor)
    platform = predictor.platforms[0]
    print(f"nnlat from {Path(nnlat.__file__).parent}")
    print(f"predictor platforms {predictor.platforms}; predicting on {platform}\n")
    use_cores(one)
    single_files(predictor, platform, args.repeats)
    if args.files_only:
        return

    graphs = nasbench201_graphs(args.graphs, Path(args.cache) if args.cache else None)
    models = [g.onnx_bytes for g in graphs]
    raws = [raw_features(g) for g in graphs]

    def in_process(fresh: list[Graph]) -> None:
        predictor.predict_raw([raw_features(g) for g in fresh], platform)

    def features_first(fresh: list[Graph]) -> None:
        predictor.predict_raw(raw_features_many(fresh), platform)

    def streamed(fresh: list[Graph]) -> None:
        predictor.predict_graphs(fresh, platform)

    def network(_: list[Graph]) -> None:
        predictor.predict_raw(raws, platform)

    def many(_: list[Graph]) -> None:
        predict_many(models, platform, predictor=predictor)

    rows: list[tuple[str, str, str]] = []
    for cores in (one, every):
        label = use_cores(cores)
        network([])  # warm-up (and torch's threads started under this affinity)
        if cores is one:
            name = "(a) features in-process, then network"
            rows.append((name, label, rate(in_process, graphs, args.passes)))
        else:
            name = "(b) features in workers (raw_features_many), then network"
            rows.append((name, label, rate(features_first, graphs, args.passes)))
            name = "(b) features in workers streamed into the network (predict_graphs)"
            rows.append((name, label, rate(streamed, graphs, args.passes)))
        name = "(c) network alone, cached features"
        rows.append((name, label, rate(network, graphs, args.passes, fresh=False)))
        name = "predict_many, ONNX bytes: load, features, network"
        rows.append((name, label, rate(many, graphs, args.passes, fresh=False)))
    use_cores(every)
    print(f"\n{len(graphs)} NAS-Bench-201 graphs, batched (graphs/s, median (min–max))\n")
    print("| path | cores | graphs/s |")
    print("|---|---|---|")
    for row in sorted(rows, key=lambda r: r[0]):
        print(f"| {' | '.join(row)} |")


if __name__ == "__main__":
    main()
