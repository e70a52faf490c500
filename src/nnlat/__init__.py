"""nnlat: query and predict the latency of neural networks on real hardware.

The public API is what ``__all__`` lists; it is pinned by a test.

Example:
    >>> import nnlat
    >>> from nnlat.testing import tiny_model
    >>> nnlat.inspect(tiny_model()).op_counts
    {'Conv': 1, 'Relu': 1}
"""

from importlib import import_module
from typing import Any

from nnlat.errors import NnlatError, NnlatWarning
from nnlat.version import __version__

# Public name → the module that defines it. Imported on first use only, so that
# ``import nnlat`` (and so every ``nnlat`` command's start) stays light: the graph layer
# pulls in onnx, ``query`` the database and runtimes, ``predict`` torch and PyG,
# ``Client`` httpx.
_LAZY = {
    "Graph": "nnlat.graph",
    "GraphKey": "nnlat.graph",
    "ModelSummary": "nnlat.graph",
    "graph_key": "nnlat.graph",
    "inspect": "nnlat.graph",
    "load": "nnlat.graph",
    "query": "nnlat.querying.api",
    "Client": "nnlat.client",
    "predict": "nnlat.predictor.api",
    "predict_code": "nnlat.predictor.code.api",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
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
    "predict_code",
    "query",
]
