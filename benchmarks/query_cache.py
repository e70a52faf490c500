"""Benchmark: the time of a cache-hit query for ResNet-50-sized models, in process.

Run:  taskset -c 0 python benchmarks/query_cache.py [--repeats 50]

Measures each model once into a fresh SQLite database (a file, as in real use), then
times ``QueryEngine.query`` when the answer is in the database, three ways:

- *first query of a file*: a new engine each time, so the file is loaded, normalised
  and hashed before the lookup (what a new process pays once per model);
- *repeated query of a file*: the same engine again (the file's hash is remembered
  while its size and modification time are unchanged): lookup only;
- *query of a loaded Graph*: hash + lookup.

Every query also counts the lookup in the hit/miss counters (one small write).
Prints a Markdown table of median / p90 milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from graph_load import LIGHT, timed, with_weights, zoo_resnet50

from nnlat.graph import load
from nnlat.measure.runner import reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.querying import QueryEngine
from nnlat.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    platform = reference_platform().name
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(f"sqlite:///{Path(tmp) / 'bench.sqlite'}")
        spec = MeasureSpec(max_time_s=1.0)
        inputs = {
            "zoo resnet50 (weight-free, 0.02 MB)": zoo_resnet50(Path(tmp) / "zoo.onnx"),
            "resnet50 + 25.6 M weights (102 MB)": with_weights(LIGHT, Path(tmp) / "w.onnx"),
        }
        print(f"platform {platform}; {args.repeats} cache-hit queries per cell\n")
        print("| model | first query of a file | repeated query of a file | query of a Graph |")
        print("|---|---|---|---|")
        for label, path in inputs.items():
            first = QueryEngine(store, spec).query(path, platform)
            assert not first.cached and first.measurement.status == "ok", first
            engine = QueryEngine(store, spec)
            graph = load(path)
            cells = []
            for fn in (
                lambda p=path: _hit(QueryEngine(store, spec), p, platform),
                lambda p=path, e=engine: _hit(e, p, platform),
                lambda g=graph, e=engine: _hit(e, g, platform),
            ):
                samples = timed(fn, args.repeats)
                p90 = statistics.quantiles(samples, n=10)[-1]
                cells.append(f"{statistics.median(samples):.2f} / {p90:.2f}")
            print(f"| {label} | " + " | ".join(cells) + " |")


def _hit(engine: QueryEngine, model: object, platform: str) -> None:
    result = engine.query(model, platform)
    assert result.cached, "expected a cache hit"


if __name__ == "__main__":
    main()
