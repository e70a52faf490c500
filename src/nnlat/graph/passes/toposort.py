"""Order nodes topologically (Kahn's algorithm, ties kept in file order).

ONNX requires topological order but real exports do not always respect it, and shape
inference walks nodes in file order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

import onnx

from nnlat.errors import ModelLoadError
from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions


def _outer_reads(node: onnx.NodeProto) -> set[str]:
    """Names a node's sub-graphs read from the enclosing scope (they order the node too)."""
    reads: set[str] = set()
    for attr in node.attribute:
        subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
        for sub in subs:
            for inner in iter_graphs(sub):
                reads.update(i for n in inner.node for i in n.input)
    return reads


def topological_order(reads: Sequence[Iterable[str]], writes: Sequence[Iterable[str]]) -> list[int]:
    """Kahn's order of nodes given what each reads and writes: a node comes as soon as
    its producers have, ties in the given order (first ready, first out).

    Raises:
        ModelLoadError: the nodes form a cycle.

    Example:
        >>> topological_order([["b"], ["x"], []], [["c"], ["b"], ["d"]])
        [1, 2, 0]
    """
    producer = {out: i for i, outs in enumerate(writes) for out in outs if out}
    deps = [
        {producer[n] for n in names if n in producer and producer[n] != i}
        for i, names in enumerate(reads)
    ]
    users: list[list[int]] = [[] for _ in deps]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    remaining = [len(d) for d in deps]
    ready = deque(i for i, r in enumerate(remaining) if r == 0)
    order: list[int] = []
    while ready:
        i = ready.popleft()
        order.append(i)
        for j in users[i]:
            remaining[j] -= 1
            if remaining[j] == 0:
                ready.append(j)
    if len(order) != len(deps):
        raise ModelLoadError("the graph has a cycle; an ONNX graph must be acyclic")
    return order


def toposort(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Sort the nodes of every graph in place.

    Raises:
        ModelLoadError: the graph has a cycle.
    """
    for graph in iter_graphs(model.graph):
        nodes = list(graph.node)
        order = topological_order(
            [set(n.input) | _outer_reads(n) for n in nodes], [n.output for n in nodes]
        )
        if order != list(range(len(nodes))):
            del graph.node[:]
            graph.node.extend(nodes[i] for i in order)
