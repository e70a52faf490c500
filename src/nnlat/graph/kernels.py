"""Split a graph into *kernels*: the groups of nodes a runtime fuses and runs as one.

The fusion rules follow NNLQP's Table 8 and nn-Meter: a compute anchor (Conv,
ConvTranspose, Gemm, MatMul) absorbs, along a chain where each node has a single
reader, an optional BatchNormalization, then an optional residual Add, then an optional
activation — giving Conv+BatchNormalization+Relu, Conv+Add+Relu, Conv+Clip, Gemm+Relu.
``Sigmoid`` followed by a ``Mul`` that also reads the Sigmoid's input (SiLU/Swish) and
HardSigmoid+Mul are fused too. Every other node is a kernel of its own.

The rules are data (``ANCHORS``, ``CHAIN``, ``GATES``): adding a rule is editing a set.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from nnlat.graph.ir import Graph

ANCHORS = frozenset({"Conv", "ConvTranspose", "Gemm", "MatMul", "ConvInteger", "MatMulInteger"})
ACTIVATIONS = frozenset(
    {"Relu", "Clip", "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Elu"}
)
# What an anchor may absorb, in order; each stage is optional.
CHAIN: tuple[frozenset[str], ...] = (
    frozenset({"BatchNormalization"}),
    frozenset({"Add", "Sum"}),
    ACTIVATIONS,
)
# Gating activations: X → Gate → Mul(X, Gate(X)).
GATES = frozenset({"Sigmoid", "HardSigmoid"})


@dataclass(frozen=True)
class Kernel:
    """A fused group of nodes.

    Attributes:
        pattern: the op types joined by ``+``, e.g. ``"Conv+Add+Relu"``.
        nodes: indices into ``graph.nodes``, in topological order.
    """

    pattern: str
    nodes: tuple[int, ...]


def _sole_reader(
    graph: Graph, index: int, taken: list[bool], graph_outputs: set[str]
) -> int | None:
    """The single node reading node ``index``'s only output, if fusing into it is allowed.

    ``graph_outputs`` holds the names of ``graph.outputs``: a graph output is never fused.
    """
    node = graph.nodes[index]
    if len(node.outputs) != 1 or node.outputs[0] in graph_outputs:
        return None
    readers = graph.consumers.get(node.outputs[0], ())
    if len(readers) != 1 or taken[readers[0]]:
        return None
    return readers[0]


def kernel_groups(graph: Graph) -> list[list[int]]:
    """The node indices of each kernel of :func:`split_kernels`, without the patterns.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> kernel_groups(load(tiny_model()))
        [[0, 1]]
    """
    taken = [False] * len(graph.nodes)
    graph_outputs = {o.name for o in graph.outputs}
    groups: list[list[int]] = []
    for i, node in enumerate(graph.nodes):
        if taken[i]:
            continue
        group = [i]
        taken[i] = True
        if node.op_type in ANCHORS:
            # The reader changes only when the chain grows: a stage that does not match
            # leaves the next stage the same candidate.
            nxt = _sole_reader(graph, i, taken, graph_outputs)
            for stage in CHAIN:
                if nxt is not None and graph.nodes[nxt].op_type in stage:
                    group.append(nxt)
                    taken[nxt] = True
                    nxt = _sole_reader(graph, nxt, taken, graph_outputs)
        elif node.op_type in GATES:
            gate_input = node.inputs[0]
            nxt = _sole_reader(graph, i, taken, graph_outputs)
            if nxt is not None:
                mul = graph.nodes[nxt]
                if mul.op_type == "Mul" and gate_input in mul.inputs:
                    group.append(nxt)
                    taken[nxt] = True
        groups.append(group)
    return groups


def split_kernels(graph: Graph) -> list[Kernel]:
    """Group the nodes of ``graph`` (top level only) into kernels.

    Returns:
        Kernels ordered by their first node; every node is in exactly one kernel.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> [k.pattern for k in split_kernels(load(tiny_model()))]
        ['Conv+Relu']
    """
    return [
        Kernel("+".join(graph.nodes[k].op_type for k in group), tuple(group))
        for group in kernel_groups(graph)
    ]


def kernel_histogram(kernels: list[Kernel]) -> dict[str, int]:
    """Pattern → count, most common first (the shape of NNLQP's Table 8)."""
    return dict(Counter(k.pattern for k in kernels).most_common())
