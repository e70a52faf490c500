"""nnlat: query and predict the latency of neural networks on real hardware.

The public API is what ``__all__`` lists; it is pinned by a test.

Example:
    >>> import nnlat
    >>> from nnlat.testing import tiny_model
    >>> nnlat.inspect(tiny_model()).op_counts
    {'Conv': 1, 'Relu': 1}
"""

from typing import Any

from nnlat.errors import NnlatError, NnlatWarning
from nnlat.graph import Graph, GraphKey, ModelSummary, graph_key, inspect, load
from nnlat.version import __version__


def __getattr__(name: str) -> Any:
    # ``nnlat.query`` pulls in the database and runtimes, ``nnlat.predict`` torch and
    # PyG, ``nnlat.Client`` httpx: imported on first use only, so that ``import nnlat``
    # stays light.
    if name == "query":
        from nnlat.querying.api import query

        return query
    if name == "Client":
        from nnlat.client import Client

        return Client
    if name == "predict":
        from nnlat.predictor.api import predict

        return predict
    raise AttributeError(f"module 'nnlat' has no attribute {name!r}")


__all__ = [
    "Client",
    "Graph",
    "GraphKey",
    "ModelSummary",
    "NnlatError",
    "NnlatWarning",
    "__version__",
    "graph_key",
    "inspect",
    "load",
    "predict",
    "query",
]
