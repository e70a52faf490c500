"""Benchmark: does nnlat measure the user's own file as a bare onnxruntime loop would?

Run (after ``python scripts/fetch_heldout.py``; on an otherwise idle core):

    chrt -f 1 taskset -c 1 python benchmarks/heldout_overhead.py [--rounds 3] [--only NAME]

For every model of the held-out real-world set (docs/realworld-heldout.md), at the input
sizes of ``scripts/measure_heldout.py``, alternates ``nnlat.measure`` on the reference
platform with a bare loop written the way a user would: one ``InferenceSession`` on the
shipped file itself (one intra-op thread; where the file's fixed batch is not the one
measured, the file with its inputs re-declared, as nnlat times it), the same inputs,
3 warm-up runs, then at least 10 timed ``session.run`` calls and up to nnlat's 1 s
budget (nnlat runs the campaign protocol of ``scripts/measure_heldout.py``). Alternating
spreads the machine's drift over both. Prints per model the median of each method's
medians and their difference, then how many models are within 5 %.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

from nnlat.datasets import CAMPAIGN_SPEC
from nnlat.measure.backends.base import graph_for
from nnlat.measure.backends.timed_model import REDECLARED, timed_model
from nnlat.measure.inputs import random_inputs
from nnlat.measure.runner import measure, reference_platform

sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
from fetch_heldout import DEFAULT_CACHE, SETS
from measure_heldout import INPUT_VALUES, SHAPES


def bare_loop(model: Path | bytes, feed: dict[str, np.ndarray], budget_s: float) -> float:
    """Median ms of plain ``session.run`` calls on the model, after 3 warm-up runs."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    source = str(model) if isinstance(model, Path) else model
    session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    for _ in range(3):
        session.run(None, feed)
    samples: list[float] = []
    end = time.perf_counter() + budget_s
    while len(samples) < 10 or (time.perf_counter() < end and len(samples) < 2000):
        start = time.perf_counter()
        session.run(None, feed)
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", help="held-out names (default: all)")
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
    )
    parser.add_argument("--set", type=int, choices=sorted(SETS), default=1, dest="heldout_set")
    args = parser.parse_args()
    platform = reference_platform().name
    budget_s = CAMPAIGN_SPEC.max_time_s
    print(f"platform {platform}; {args.rounds} alternating rounds per model\n")
    print("| model | nnlat median ms (n) | bare loop median ms | difference |")
    print("|---|---|---|---|")
    within = total = 0
    differences = []
    for entry in SETS[args.heldout_set]:
        if args.only and entry.name not in args.only:
            continue
        path = args.cache / entry.relative_path()
        shapes = SHAPES[args.heldout_set].get(entry.name, {})
        # the shapes go in the spec too: its batch size alone would set every dimension 0
        spec = CAMPAIGN_SPEC.model_copy(update={"input_shapes": shapes})
        graph = graph_for(path, spec)  # the inputs nnlat times, batch included
        feed = {**random_inputs(graph, 0), **INPUT_VALUES.get(entry.name, {})}
        # A file declared with another fixed batch than the one measured cannot run as
        # shipped at these inputs: nnlat times it with its inputs re-declared, and so
        # does the bare loop (the row says so).
        timed = timed_model(graph, spec.seed)
        bare_model: Path | bytes = path
        if timed.form == REDECLARED:
            bare_model = timed.proto.SerializeToString()
        ours, bare, runs = [], [], []
        for _ in range(args.rounds):
            result = measure(path, platform, spec, inputs=feed)  # the file: its own graph is timed
            if result.stats is None:
                print(f"| {entry.name} | {result.status}: {result.error} | | |", flush=True)
                break
            ours.append(result.stats.median_ms)
            runs.append(result.stats.n)
            bare.append(bare_loop(bare_model, feed, budget_s))
        if not ours:
            continue
        a, b = statistics.median(ours), statistics.median(bare)
        difference = (a - b) / b
        differences.append(difference)
        total += 1
        within += abs(difference) <= 0.05
        label = entry.name + (" (inputs re-declared)" if timed.form == REDECLARED else "")
        print(
            f"| {label} | {a:.4g} ({statistics.median(runs):.0f}) | {b:.4g} | "
            f"{difference * 100:+.1f} % |",
            flush=True,
        )
    median_abs = statistics.median(abs(d) for d in differences) * 100 if differences else 0.0
    print(f"\n{within} of {total} models within 5 %; median |difference| {median_abs:.1f} %")


if __name__ == "__main__":
    main()
