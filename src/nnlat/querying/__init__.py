"""Querying: the latency of a model on a platform, from the database or measured now.

Named ``querying`` rather than ``query`` so that ``nnlat.query`` can be the function.
"""

from nnlat.querying.engine import QueryEngine, QueryResult

__all__ = ["QueryEngine", "QueryResult"]
