"""Benchmark: where does a 9 µs model's difference from a bare onnxruntime loop come from?

Run (on an otherwise idle core, after ``python scripts/fetch_heldout.py --set 6``):

    chrt -f 1 taskset -c 1 python benchmarks/tiny_model_window.py [FILE.onnx]

Two checks on one tiny file (default: set 6's ``surfaces-surrogates`` SVM regressor):
1. the session call itself, interleaved in one process: a bare ``session.run(None, feed)``
   loop, the same with output names, and nnlat's ``OrtPrepared.run`` — 15 rounds of 300
   runs each after a 200-run warm-up, the median of the rounds' medians;
2. nnlat's whole measurement (the campaign protocol) alone, then each time right after a
   bare loop's second of work on the same core, as ``benchmarks/heldout_overhead.py``
   alternates them, with the number of timed runs the confidence rule took.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import platformdirs

from nnlat.datasets import CAMPAIGN_SPEC
from nnlat.measure.backends.base import graph_for
from nnlat.measure.backends.onnxruntime import OrtPrepared, cpu_session
from nnlat.measure.inputs import random_inputs
from nnlat.measure.runner import measure, reference_platform

sys.path.insert(0, str(Path(__file__).parent))
from heldout_overhead import bare_loop

DEFAULT = (
    Path(platformdirs.user_cache_dir("nnlat", appauthor=False))
    / "heldout/surfaces-surrogates/0.0.1/surfaces_surrogates/models/svm_regressor.onnx"
)


def loop_median_us(run: Callable[[], float], runs: int) -> float:
    """Median µs of ``runs`` calls of ``run`` (each returns its own ms)."""
    return 1e3 * statistics.median(run() for _ in range(runs))


def timed_call(call: Callable[[], object]) -> Callable[[], float]:
    """``call`` timed around itself, in ms."""

    def run() -> float:
        start = time.perf_counter_ns()
        call()
        return (time.perf_counter_ns() - start) / 1e6

    return run


def main() -> None:
    """Print both checks."""
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    feed = random_inputs(graph_for(path, CAMPAIGN_SPEC), 0)
    data = path.read_bytes()
    bare, named, ours = (cpu_session(data, 1) for _ in range(3))
    names = [o.name for o in named.get_outputs()]
    prepared = OrtPrepared(ours)
    loops = {
        "bare session.run(None)": timed_call(lambda: bare.run(None, feed)),
        "session.run(names)": timed_call(lambda: named.run(names, feed)),
        "nnlat OrtPrepared.run": lambda: prepared.run(feed).latency_ms,
    }
    for run in loops.values():
        loop_median_us(run, 200)
    rounds: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(15):
        for name, run in loops.items():
            rounds[name].append(loop_median_us(run, 300))
    print(f"{path.name}: the session call, interleaved (median of 15 rounds of 300)")
    for name, values in rounds.items():
        print(f"  {name:24s} {statistics.median(values):6.2f} µs")
    platform = reference_platform().name
    print("nnlat's measurement (campaign protocol): median µs, timed runs")
    for when in ("alone", "after a bare loop", "after a bare loop", "after a bare loop"):
        if when != "alone":
            bare_loop(path, feed, CAMPAIGN_SPEC.max_time_s)
        result = measure(path, platform, CAMPAIGN_SPEC, inputs=feed)
        assert result.stats is not None, result.error
        print(f"  {when:18s} {1e3 * result.stats.median_ms:6.2f} µs  n={result.stats.n}")


if __name__ == "__main__":
    main()
