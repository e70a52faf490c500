"""The structural graph hash of NNLQP (§5.2, eqs. 1–2): the cache key of a model.

Node hash, computed in reverse topological order::

    H_v = hash( sort(A_v) ⊕ sort({ (H_u, how v feeds u) | u ∈ Suc(v) }) )

where ``A_v`` holds the op type and domain, the canonical attributes, the output types
and shapes, the types of constant inputs (weights: shape and dtype, never values) and
which outputs are graph outputs. Unlike the paper we also record *how* v feeds each
successor (which output, which input slot), so ``Sub(a, b)`` and ``Sub(b, a)`` differ.

Graph hash::

    H_G = hash( scheme ⊕ sort({ H_u | Pre(u) = ∅ }) ⊕ sort(graph input types) )

Names of nodes and tensors, node order in the file, weight values, doc strings and shapes
observed by running the model (:attr:`Graph.observed`) never enter the hash. Free text
that enters it unquoted (op types, domains, attribute names) has the characters that
separate its parts escaped, so no name can pose as another attribute or node. A graph
output that no node produces (an input or a weight passed through) and a graph without
outputs are recorded too; a graph whose nodes are not in topological order (a cycle) has
no hash: every node must hang from a root. Bump :data:`HASH_SCHEME_VERSION` whenever
anything that feeds the hash changes (a normalisation pass included), and update the
golden hashes in the tests.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from nnlat.errors import InvalidModelError
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


# Characters that separate the parts of a node's text; "%" escapes them (and itself).
# Names of real operators and attributes have none, so escaping leaves their text as it
# was and pinned hashes stay valid.
_SEPARATORS = "%|;:=@>,()[]"
_ESCAPES = str.maketrans({c: f"%{ord(c):02x}" for c in _SEPARATORS})


def _escape(text: str) -> str:
    return text.translate(_ESCAPES) if any(c in text for c in _SEPARATORS) else text


def _value_text(value: AttrValue) -> str:
    if isinstance(value, Graph):
        return f"graph:{graph_key(value).digest}"
    if isinstance(value, TensorValue):
        return f"tensor:{value.dtype}[{','.join(map(str, value.shape))}]"
    if isinstance(value, tuple):
        return "(" + ",".join(_value_text(v) for v in value) + ")"
    # Strings enter as their repr: quoted and escaped, so they delimit themselves.
    return f"{type(value).__name__}:{value!r}"


def _node_text(graph: Graph, node: Node, graph_outputs: dict[str, int]) -> str:
    parts = [f"op:{_escape(node.domain)}:{_escape(node.op_type)}"]
    parts += [f"attr:{_escape(name)}={_value_text(value)}" for name, value in node.attributes]
    for k, name in enumerate(node.outputs):
        parts.append(f"out{k}:{_spec_text(graph.inferred_spec(name))}")
        if name in graph_outputs:
            parts.append(f"graph_output{k}:{graph_outputs[name]}")
    for slot, name in enumerate(node.inputs):
        if not name:
            parts.append(f"in{slot}:omitted")
        elif name in graph.weights:
            parts.append(f"in{slot}:const:{_spec_text(graph.weights[name])}")
        elif name not in graph.producer:
            # a graph input, or a tensor of an enclosing graph (inside a sub-graph)
            parts.append(f"in{slot}:input:{_spec_text(graph.inferred_spec(name))}")
    return "|".join(parts)


def _digest(text: str, size: int) -> str:
    return hashlib.blake2b(text.encode(), digest_size=size).hexdigest()


def node_hashes(graph: Graph) -> list[str]:
    """The hash of every node (eq. 1), indexed like ``graph.nodes``."""
    graph_outputs = {spec.name: k for k, spec in enumerate(graph.outputs)}
    output_index = {name: k for node in graph.nodes for k, name in enumerate(node.outputs) if name}
    feeds: list[list[tuple[int, str, int]]] = [[] for _ in graph.nodes]
    for edge in graph.edges:
        if edge.dst <= edge.src:
            raise InvalidModelError(
                f"node {edge.dst} reads tensor {edge.tensor!r} of node {edge.src}, which is not "
                "before it: the graph has a cycle or is not in topological order"
            )
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

    Raises:
        InvalidModelError: the nodes are not in topological order (a cycle).
    """
    hashes = node_hashes(graph)
    roots = sorted(hashes[i] for i in range(len(graph.nodes)) if not graph.predecessors(i))
    inputs = sorted(_spec_text(spec) for spec in graph.inputs)
    text = f"scheme:{HASH_SCHEME_VERSION}|roots:{';'.join(roots)}|inputs:{';'.join(inputs)}"
    # Outputs no node produces; appended only when there are some (or no outputs at all),
    # so the hashes of every other graph stay what they were.
    produced = graph.producer
    passed = [
        f"{k}:{'const' if spec.name in graph.weights else 'input'}:{_spec_text(spec)}"
        for k, spec in enumerate(graph.outputs)
        if spec.name not in produced
    ]
    if passed:
        text += f"|passthrough:{';'.join(passed)}"
    if not graph.outputs:
        text += "|no-outputs"
    return GraphKey(_digest(text, 8))
