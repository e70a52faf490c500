"""Measure the real-world-like fixtures (OCR, detection, LSTM, transformer, int8, ...).

Run:  taskset -c 0 python scripts/measure_realworld.py --db URL -p PLATFORM [-p ...]

These graphs belong to no zoo family: they are the held-out set on which predictors
trained on the zoo are checked for generalisation (issue 4). Each model is stored with
its ONNX and the family ``realworld:<name>`` (the stored form; records read it back as
source ``real-world``, family ``<name>``); rerunning skips what is stored.
"""

from __future__ import annotations

import argparse

from nnlat.datasets.training import REALWORLD_PREFIX
from nnlat.measure.types import MeasureSpec
from nnlat.querying import QueryEngine
from nnlat.store import Store
from nnlat.zoo.realworld import EXAMPLE_INPUT_SHAPES, REALWORLD_BUILDERS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("-p", "--platform", action="append", required=True)
    parser.add_argument("--max-time", type=float, default=2.0)
    args = parser.parse_args()
    with Store.open(args.db) as store:
        engine = QueryEngine(store, MeasureSpec(max_time_s=args.max_time))
        for name, build in REALWORLD_BUILDERS.items():
            model = build()
            shapes = EXAMPLE_INPUT_SHAPES.get(name, {})
            batch = next(iter(shapes.values()))[0] if shapes else 1
            for platform in args.platform:
                result = engine.query(
                    model, platform, batch, shapes, family=f"{REALWORLD_PREFIX}{name}"
                )
                m = result.measurement
                median = f"{m.stats.median_ms:.3f} ms" if m.stats else m.error
                print(f"{name:28s} {platform:32s} {m.status:8s} {median}", flush=True)


if __name__ == "__main__":
    main()
