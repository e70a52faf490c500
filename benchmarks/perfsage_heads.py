"""Benchmark: every head of a PerfSAGE predictor for one TFLite model, on one core.

Run:  python benchmarks/perfsage_heads.py [--predictor DIR] [--heads 6] [--hidden 256]
      [--repeats 20] [--core 0]

PerfSAGE's promise is one embedding per model for every (platform, target) head. This
times ``nnlat.predictor.api.predict_heads`` for one int8 TFLite model of each
EdgeDLPerf-like design space (exported once from the zoo, untimed, seed 0):

* *end to end*: the ``.tflite`` file → TFLite reader → Graph IR (normalised) → raw
  features → encoding → GraphSAGE embedding → every head;
* *network*: the same from cached raw features (encoding, embedding, heads).

Without ``--predictor`` the predictor is an untrained PerfSAGE of the paper's sizes (8
GraphSAGE layers, heads of four 1024-wide layers; the paper gives no hidden width:
``--hidden``, 256 by default, 64 as ``nnlat eval perfsage --hidden 64`` trains in the
reports) with ``--heads`` heads and a feature schema fitted on the four models: speed
does not depend on the weights.
The process is pinned to ``--core`` with one torch thread; the median CPU time of
``--repeats`` calls after one warm-up (what a call costs the core), and the median and
p90 wall times (which add the wait for the core on a shared host).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from nnlat.features.raw import raw_features
from nnlat.features.schema import FeatureSchema
from nnlat.graph.load import load
from nnlat.predictor.api import predict_heads
from nnlat.predictor.predictor import NETWORKS, Predictor
from nnlat.zoo.registry import get_family

SPACES = ("cnn-kws", "cnn-cifar10", "vit-cifar100", "cnn-imagenet")


def timed(call: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    """(median wall, p90 wall, median CPU) milliseconds of ``repeats`` calls after one
    warm-up. On a shared host the CPU time (this process, one thread) is what the call
    costs a core; the wall time adds waiting for the core."""
    call()
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    walls.sort()
    p90 = walls[min(len(walls) - 1, int(0.9 * len(walls)))]
    return statistics.median(walls), p90, statistics.median(cpus)


def untrained(paths: list[Path], heads: int, hidden: int = 256) -> Predictor:
    """A PerfSAGE of the paper's sizes with ``heads`` heads, schema fitted on ``paths``."""
    schema = FeatureSchema.fit(raw_features(load(p)) for p in paths)
    spec = NETWORKS.get("perfsage")
    config = spec.config_type(
        node_dim=schema.node_dim, global_dim=schema.global_dim, platforms=heads, hidden=hidden
    )
    targets = ["latency", "memory", "energy"]
    return Predictor(
        schema,
        spec.build(config),
        "perfsage",
        # Names that read as platforms (the hardware check parses every head's name).
        [f"bench{i // 3}-litert2.3-int8-t1" for i in range(heads)],
        targets=[targets[i % 3] for i in range(heads)],
        log_scales=[0.0] * heads,
    )


def main() -> None:
    """Export the models, build or load the predictor, time both paths per space."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--predictor", type=Path)
    parser.add_argument("--heads", type=int, default=6)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--core", type=int, default=0)
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.core})
    torch.set_num_threads(1)
    directory = Path(tempfile.mkdtemp(prefix="perfsage-bench-"))
    paths = []
    for space in SPACES:
        family = get_family(space)
        path = directory / f"{space}.tflite"
        path.write_bytes(family.model(family.sample(random.Random(0))).to_tflite())
        paths.append(path)
    predictor = (
        Predictor.load(args.predictor)
        if args.predictor
        else untrained(paths, args.heads, args.hidden)
    )
    width = predictor.net.config.hidden
    print(
        f"{len(predictor.heads)} heads, network {predictor.network} (hidden {width}), "
        "one core, torch 1 thread"
    )
    print(
        "| space | nodes | file KiB | end to end ms: CPU (wall median / p90) "
        "| network ms: CPU (wall median / p90) |"
    )
    print("|---|---|---|---|---|")
    for space, path in zip(SPACES, paths, strict=True):
        raw = raw_features(load(path))
        whole = timed(lambda path=path: predict_heads(path, predictor=predictor), args.repeats)
        net = timed(lambda raw=raw: predictor.predict_heads([raw]), args.repeats)
        print(
            f"| {space} | {len(raw.op_types)} | {path.stat().st_size // 1024} | "
            f"{whole[2]:.1f} ({whole[0]:.1f} / {whole[1]:.1f}) | "
            f"{net[2]:.1f} ({net[0]:.1f} / {net[1]:.1f}) |",
            flush=True,
        )


if __name__ == "__main__":
    main()
