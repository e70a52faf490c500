"""Can a graph's summary be stored? Its cost totals must fit the database's integers."""

from __future__ import annotations

from nnlat.errors import LimitExceededError
from nnlat.graph.ir import Graph
from nnlat.graph.summary import summarize

MAX_DB_INTEGER = (1 << 63) - 1
"""A cost column is a signed 64-bit INTEGER on every database nnlat supports."""


def check_storable(graph: Graph) -> None:
    """Refuse a graph whose cost totals do not fit the database's 64-bit integers.

    Raises:
        LimitExceededError: a total (FLOPs, MACs, parameters, bytes) is over 2**63 - 1.
    """
    summary = summarize(graph)
    for name in ("flops", "macs", "params", "bytes"):
        value = getattr(summary, name)
        if not -MAX_DB_INTEGER <= value <= MAX_DB_INTEGER:
            raise LimitExceededError(
                f"the model's {name} total ({value:.3e}) does not fit a 64-bit integer; "
                "no real network comes near it: check the model's shapes"
            )
