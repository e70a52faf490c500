"""Raw features of many graphs on every allowed core, in forked worker processes.

:func:`raw_features_many` is :func:`~nnlat.features.raw.raw_features` over a list;
:func:`iter_raw_features` yields the same features in order as they are ready, so that
a network can run on the first ones while workers compute the rest. Both use
:func:`nnlat.forked.iter_forked`: workers forked per call read the graphs from the
parent's memory by index (nothing pickled on the way in), and send the features back.
Below :data:`MIN_PARALLEL` graphs, or with one worker, everything runs in-process.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from nnlat.features.raw import RawFeatures, raw_features
from nnlat.forked import iter_forked, map_forked
from nnlat.graph.ir import Graph

MIN_PARALLEL = 64
"""Fewer graphs than this are processed in-process: forking would cost more."""


def raw_features_many(graphs: Sequence[Graph], workers: int | None = None) -> list[RawFeatures]:
    """:func:`~nnlat.features.raw.raw_features` of every graph, in order, on ``workers`` cores.

    Args:
        graphs: the graphs.
        workers: processes at work, this one included (default: the cores this process
            may run on); 1 runs in-process.

    Raises:
        Exception: whatever ``raw_features`` raised for the first failing graph, with a
            note naming it (``while processing graph 3 of 100``).

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> raws = raw_features_many([load(tiny_model(channels=c)) for c in (2, 4)])
        >>> [raw.op_types for raw in raws]
        [('Conv', 'Relu'), ('Conv', 'Relu')]
    """
    return map_forked(raw_features, graphs, workers, label="graph", min_items=MIN_PARALLEL)


def iter_raw_features(graphs: Sequence[Graph], workers: int | None = None) -> Iterator[RawFeatures]:
    """:func:`raw_features_many`, yielded in order as the features are ready.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> next(iter_raw_features([load(tiny_model())])).op_types
        ('Conv', 'Relu')
    """
    return iter_forked(raw_features, graphs, workers, label="graph", min_items=MIN_PARALLEL)
