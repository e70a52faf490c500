"""nnlat: query and predict the latency of neural networks on real hardware.

The public API is what ``__all__`` lists; it is pinned by a test.

Example:
    >>> import nnlat
    >>> from nnlat.testing import tiny_model
    >>> nnlat.inspect(tiny_model()).op_counts
    {'Conv': 1, 'Relu': 1}
"""

from nnlat.errors import NnlatError, NnlatWarning
from nnlat.graph import Graph, GraphKey, ModelSummary, graph_key, inspect, load

__version__ = "0.1.0"

__all__ = [
    "Graph",
    "GraphKey",
    "ModelSummary",
    "NnlatError",
    "NnlatWarning",
    "__version__",
    "graph_key",
    "inspect",
    "load",
]
