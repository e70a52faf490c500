"""Model → Graph IR: loading, normalisation, costs, structural hash, kernels.

``load`` is the entry point; everything else takes the resulting :class:`Graph`.
This package never imports torch (except lazily, to export a module), databases or
web frameworks.
"""

from nnlat.graph.cost import GraphCost, NodeCost, graph_cost, node_cost
from nnlat.graph.hashing import HASH_SCHEME_VERSION, GraphKey, graph_key, node_hashes
from nnlat.graph.ir import Edge, Graph, Node, TensorSpec, TensorValue
from nnlat.graph.kernels import Kernel, kernel_histogram, split_kernels
from nnlat.graph.load import ModelSource, load
from nnlat.graph.ops import op_family
from nnlat.graph.summary import ModelSummary, inspect, summarize

__all__ = [
    "HASH_SCHEME_VERSION",
    "Edge",
    "Graph",
    "GraphCost",
    "GraphKey",
    "Kernel",
    "ModelSource",
    "ModelSummary",
    "Node",
    "NodeCost",
    "TensorSpec",
    "TensorValue",
    "graph_cost",
    "graph_key",
    "inspect",
    "kernel_histogram",
    "load",
    "node_cost",
    "node_hashes",
    "op_family",
    "split_kernels",
    "summarize",
]
