"""The structural graph hash of NNLQP (§5.2, eqs. 1–2): the cache key of a model.

Node hash, computed in reverse topological order::

    H_v = hash( sort(A_v) ⊕ sort({ (H_u, how v feeds u) | u ∈ Suc(v) }) )

where ``A_v`` holds the op type and domain, the canonical attributes, the output types
and shapes, the types of constant inputs (weights: shape and dtype, never values) and
which outputs are graph outputs. Unlike the paper we also record *how* v feeds each
successor (which output, which input slot), so ``Sub(a, b)`` and ``Sub(b, a)`` differ.

Graph hash::

    H_G = hash( scheme ⊕ sort({ H_u | Pre(u) = ∅ }) ⊕ sort(graph input types) )

Names of nodes and tensors, node order in the file, weight values and doc strings never
enter the hash. Bump :data:`HASH_SCHEME_VERSION` whenever anything that feeds the hash
changes (a normalisation pass included), and update the golden hashes in the tests.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from nnlat.graph.ir import AttrValue, Graph, Node, TensorSpec, TensorValue

HASH_SCHEME_VERSION = 1


@dataclass(frozen=True)
class GraphKey:
    """The hash of a graph: 8 bytes as 16 hex characters, plus the scheme version.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> key = graph_key(load(tiny_model()))
        >>> len(key.digest), key.scheme
        (16, 1)
    """

    digest: str
    scheme: int = HASH_SCHEME_VERSION

    def __str__(self) -> str:
        return self.digest


def _spec_text(spec: TensorSpec | None) -> str:
    if spec is None:
        return "?"
    shape = (
        "?" if spec.shape is None else ",".join("?" if d is None else str(d) for d in spec.shape)
    )
    return f"{spec.dtype}[{shape}]"


def _value_text(value: AttrValue) -> str:
    if isinstance(value, Graph):
        return f"graph:{graph_key(value).digest}"
    if isinstance(value, TensorValue):
        return f"tensor:{value.dtype}[{','.join(map(str, value.shape))}]"
    if isinstance(value, tuple):
        return "(" + ",".join(_value_text(v) for v in value) + ")"
    return f"{type(value).__name__}:{value!r}"


def _node_text(graph: Graph, node: Node, graph_outputs: dict[str, int]) -> str:
    parts = [f"op:{node.domain}:{node.op_type}"]
    parts += [f"attr:{name}={_value_text(value)}" for name, value in node.attributes]
    for k, name in enumerate(node.outputs):
        parts.append(f"out{k}:{_spec_text(graph.tensors.get(name))}")
        if name in graph_outputs:
            parts.append(f"graph_output{k}:{graph_outputs[name]}")
    for slot, name in enumerate(node.inputs):
        if not name:
            parts.append(f"in{slot}:omitted")
        elif name in graph.weights:
            parts.append(f"in{slot}:const:{_spec_text(graph.weights[name])}")
        elif name not in graph.producer:
            # a graph input, or a tensor of an enclosing graph (inside a sub-graph)
            parts.append(f"in{slot}:input:{_spec_text(graph.tensors.get(name))}")
    return "|".join(parts)


def _digest(text: str, size: int) -> str:
    return hashlib.blake2b(text.encode(), digest_size=size).hexdigest()


def node_hashes(graph: Graph) -> list[str]:
    """The hash of every node (eq. 1), indexed like ``graph.nodes``."""
    graph_outputs = {spec.name: k for k, spec in enumerate(graph.outputs)}
    output_index = {name: k for node in graph.nodes for k, name in enumerate(node.outputs) if name}
    feeds: list[list[tuple[int, str, int]]] = [[] for _ in graph.nodes]
    for edge in graph.edges:
        feeds[edge.src].append((edge.dst, edge.tensor, edge.slot))
    hashes: list[str] = [""] * len(graph.nodes)
    for i in reversed(range(len(graph.nodes))):
        successors = sorted(
            f"{hashes[dst]}@{output_index[tensor]}>{slot}" for dst, tensor, slot in feeds[i]
        )
        text = _node_text(graph, graph.nodes[i], graph_outputs) + "||" + ";".join(successors)
        hashes[i] = _digest(text, 16)
    return hashes


def graph_key(graph: Graph) -> GraphKey:
    """The graph hash (eq. 2) of ``graph``.

    Returns:
        A :class:`GraphKey`; equal keys mean equal structure, attributes and shapes.
    """
    hashes = node_hashes(graph)
    roots = sorted(hashes[i] for i in range(len(graph.nodes)) if not graph.predecessors(i))
    inputs = sorted(_spec_text(spec) for spec in graph.inputs)
    text = f"scheme:{HASH_SCHEME_VERSION}|roots:{';'.join(roots)}|inputs:{';'.join(inputs)}"
    return GraphKey(_digest(text, 8))
