"""Where a graph lies outside what the predictor was trained on: its size, not its operators.

A graph network extrapolates poorly in size: on held-out shipped models, the two of more
than 2,000 operators (sub-graphs included) were over-predicted by 86 and 244 %, where the
training graphs stop below 3,000 (``reports/realworld/set6/operator-counts.md``). The
ranges here count the operators of the graph the network reads (after nnlat's
normalisation), so their numbers are smaller. The predictor keeps the range
of each graph-level value over the records it was trained on, validation share included
(``info["graph_ranges"]``, written by :meth:`~nnlat.predictor.predictor.Predictor.train`);
a prediction says which values of the model fall outside, as it says which operators
were never seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from nnlat.features.raw import GRAPH_COLUMNS, RawFeatures

RANGES_KEY = "graph_ranges"
CHECKED = {
    "nodes": "operators",
    "flops": "FLOPs",
    "params": "parameters",
    "bytes": "bytes moved",
    "batch_size": "batch size",
}
"""The values a prediction is checked on, and their names in words (``macs`` follows
``flops``, ``kernels`` follows ``nodes``)."""


def training_ranges(raws: Iterable[RawFeatures]) -> dict[str, list[float]]:
    """``column → [min, max]`` of each graph-level value over ``raws`` (empty: ``{}``).

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.features.raw import raw_features
        >>> from nnlat.graph import load
        >>> ranges = training_ranges([raw_features(load(tiny_model()))])
        >>> ranges["nodes"][0] == ranges["nodes"][1] > 0
        True
    """
    values = [raw.graph_values for raw in raws]
    if not values:
        return {}
    stacked = np.stack(values)
    return {
        column: [float(stacked[:, i].min()), float(stacked[:, i].max())]
        for i, column in enumerate(GRAPH_COLUMNS)
    }


def outside_ranges(raw: RawFeatures, info: Mapping[str, Any]) -> tuple[str, ...]:
    """The graph-level values of ``raw`` outside the training ranges in ``info``, in words.

    A predictor saved without ranges checks nothing.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.features.raw import raw_features
        >>> from nnlat.graph import load
        >>> raw = raw_features(load(tiny_model()))
        >>> outside_ranges(raw, {RANGES_KEY: {"nodes": [10.0, 20.0]}})
        ('operators 2 (training graphs: at least 10)',)
        >>> outside_ranges(raw, {})
        ()
    """
    ranges = info.get(RANGES_KEY) or {}
    found = []
    for column, words in CHECKED.items():
        if column not in ranges:
            continue
        low, high = ranges[column]
        value = float(raw.graph_values[GRAPH_COLUMNS.index(column)])
        if value > high:
            found.append(f"{words} {value:,.0f} (training graphs: at most {high:,.0f})")
        elif value < low:
            found.append(f"{words} {value:,.0f} (training graphs: at least {low:,.0f})")
    return tuple(found)


def reason_kind(reason: str) -> str:
    """Which value and which side one :func:`outside_ranges` answer is about.

    Example:
        >>> reason_kind("bytes moved 9,000 (training graphs: at most 2,899)")
        'bytes moved above'
    """
    words = reason.split(" (")[0].rsplit(" ", 1)[0]
    return f"{words} {'above' if 'at most' in reason else 'below'}"
