"""PerfSAGE's Table 7: an nn-Meter-style kernel predictor against PerfSAGE, and what it
cannot handle.

The kernel predictor is the ``nn-meter`` method
(:class:`~nnlat.predictor.baselines.kernel_forest.KernelForest`: one random forest per
fused kernel pattern, kernel latencies summed per model, the sum linearly corrected). It
is fitted per platform on latency only, on the same 80 % pools the networks train on
(specialised: one space; generalised: all four), and scored on the same 20 % tests.

What it cannot do, counted rather than asserted:

* **targets other than latency**: a sum of per-kernel latencies has no meaning for peak
  memory (a maximum over time) nor for an NPU's SRAM; it gets no memory cell.
* **kernels it never saw**: nn-Meter has a predictor only for the kernel types it was
  built for (none for a transformer's attention and normalisation, the paper's ViT
  failure). Here an unseen fused pattern goes to a forest fitted on every kernel, an
  nnlat extension; ``unseen_kernels`` counts the test graphs that needed it, which
  nn-Meter proper could not predict.
* **non-square kernels**: nn-Meter describes a convolution by one kernel size;
  ``non_square`` counts the test graphs with a kernel_h ≠ kernel_w window (the features
  here keep both, so the forests do see them).

Like the paper's Table 7 it is scored on CPU latency only (platforms without ``vela`` in
their name): on this project's shared CPU core a forest per kernel pattern costs minutes,
and the NPU rows (where the paper says a sum is the wrong aggregation) were left out.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np

from nnlat.features.raw import NODE_COLUMNS
from nnlat.features.records import LatencyRecord
from nnlat.predictor.baselines.kernel_forest import KernelForest
from nnlat.predictor.metrics import mape

METHOD = "nn-meter"
_KH, _KW = NODE_COLUMNS.index("kernel_h"), NODE_COLUMNS.index("kernel_w")


def non_square(record: LatencyRecord) -> bool:
    """Whether the graph has a window whose height and width differ.

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> non_square(toy_records()[0])
        False
    """
    values = record.raw.node_values
    return bool(values.size and np.any(values[:, _KH] != values[:, _KW]))


def unseen(model: KernelForest, record: LatencyRecord) -> bool:
    """Whether a kernel pattern of the graph has no forest of its own in ``model``."""
    return any(p not in model.forests_ for p in record.raw.kernel_patterns())


def kernel_rows(
    pools: Mapping[str, Sequence[LatencyRecord]],
    tests: Mapping[str, Sequence[LatencyRecord]],
    seed: int,
    done: set[tuple[str, str, str]],
) -> list[dict[str, object]]:
    """The nn-Meter rows (``PerfsageResult`` fields) of every CPU platform's latency,
    specialised per space and generalised, skipping the (mode, trained_on, platform) in
    ``done``.

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> records = toy_records()
        >>> rows = kernel_rows({"toy": records[:9]}, {"toy": records[9:]}, 0, set())
        >>> sorted({(r["mode"], r["trained_on"]) for r in rows})
        [('generalised', 'all'), ('specialised', 'toy')]
    """
    platforms = sorted({r.platform for s in pools.values() for r in s if "vela" not in r.platform})
    runs = [("specialised", space, [space]) for space in pools]
    runs.append(("generalised", "all", list(pools)))
    rows = []
    for mode, trained_on, spaces in runs:
        for platform in platforms:
            if (mode, trained_on, platform) in done:
                continue
            train = [r for s in spaces for r in pools[s] if r.platform == platform]
            if not train:
                continue
            start = time.perf_counter()
            model = KernelForest(random_state=seed).fit(train)
            seconds = time.perf_counter() - start
            for space in spaces:
                scored = [r for r in tests[space] if r.platform == platform]
                if not scored:
                    continue
                predicted = model.predict(scored)
                measured = [r.latency_ms for r in scored]
                rows.append(
                    {
                        "method": METHOD,
                        "mode": mode,
                        "trained_on": trained_on,
                        "space": space,
                        "platform": platform,
                        "target": "latency",
                        "seed": seed,
                        "train_graphs": len({r.graph_hash for r in train}),
                        "test_size": len(scored),
                        "mape": mape(measured, predicted),
                        "valid_mape": None,
                        "best_epoch": 0,
                        "fit_seconds": seconds,
                        "measured": measured,
                        "predicted": predicted.tolist(),
                        "unseen_kernels": sum(unseen(model, r) for r in scored),
                        "non_square": sum(non_square(r) for r in scored),
                    }
                )
    return rows
