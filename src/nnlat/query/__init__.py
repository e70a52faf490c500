"""Query: the latency of a model on a platform, from the database or measured now."""

from nnlat.query.engine import QueryEngine, QueryResult

__all__ = ["QueryEngine", "QueryResult"]
