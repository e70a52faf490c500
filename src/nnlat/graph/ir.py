"""The graph IR: the one graph type used outside ``nnlat.graph``.

A :class:`Graph` is a weight-free, shape-inferred, canonicalised operator graph. It is
built by :func:`nnlat.graph.load` and never mutated afterwards (frozen dataclasses).
Nodes are stored in topological order; data-flow edges are derived from tensor names.

Shapes use ``None`` for a dimension that could not be inferred and a ``None`` shape for
an unknown rank, so code that needs static shapes can tell "unknown" from "scalar".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

Dim = int | None
Shape = tuple[Dim, ...] | None


@dataclass(frozen=True)
class Quantization:
    """Affine quantisation of a tensor: ``real = scale * (stored - zero_point)``.

    Attributes:
        scale: one scale per tensor, or one per slice along ``axis`` (per-channel).
        zero_point: the matching zero points.
        axis: the per-channel dimension, indexed in the tensor's ``shape`` as given here.
    """

    scale: tuple[float, ...]
    zero_point: tuple[int, ...]
    axis: int = 0


@dataclass(frozen=True)
class TensorSpec:
    """Type of one tensor: name, element type and shape.

    Attributes:
        name: tensor name in the source model (not part of any hash).
        dtype: numpy-style element type (``"float32"``, ``"int64"``, ...), ``"unknown"``
            when the model does not say.
        shape: one entry per dimension, ``None`` for an unknown dimension; ``None`` for an
            unknown rank.
        itemsize: bytes per element (0 when unknown).
        quant: quantisation parameters where the source model states them (TFLite); like
            weight values they never enter the graph hash.
    """

    name: str
    dtype: str
    shape: Shape
    itemsize: int = 0
    quant: Quantization | None = None

    # Sizes are recomputed on each read: cost and feature code reads each tensor's size
    # only a few times, and a cached_property's first read (Python 3.11) costs more than
    # this check.
    @property
    def is_static(self) -> bool:
        """True when the rank and every dimension are known."""
        return self.shape is not None and None not in self.shape

    @property
    def numel(self) -> int | None:
        """Number of elements, or None when the shape is not fully known."""
        shape = self.shape
        if shape is None or None in shape:
            return None
        return math.prod(shape)  # type: ignore[arg-type]

    @property
    def nbytes(self) -> int | None:
        """Size in bytes, or None when the shape or dtype is unknown."""
        shape = self.shape
        if shape is None or None in shape or self.itemsize == 0:
            return None
        return math.prod(shape) * self.itemsize  # type: ignore[arg-type]


@dataclass(frozen=True)
class TensorValue:
    """A TENSOR-valued attribute, summarised by type and shape only (weights never matter)."""

    dtype: str
    shape: tuple[int, ...]


AttrValue = Union[int, float, str, bytes, tuple, TensorValue, "Graph"]


@dataclass(frozen=True)
class Node:
    """One operator application.

    Attributes:
        name: node name in the source model (not part of any hash).
        op_type: operator type, e.g. ``"Conv"``.
        domain: operator domain, ``""`` for the default ONNX domain.
        attributes: ``(name, value)`` pairs sorted by name, schema defaults filled in.
            Graph-valued attributes (``If`` branches, ``Loop`` bodies) are :class:`Graph`.
        inputs: input tensor names; ``""`` marks an omitted optional input.
        outputs: output tensor names.
        implicit_inputs: tensors of this graph that the node's sub-graphs read (an ``If``
            branch reading an outer tensor); they are data-flow edges too.
    """

    name: str
    op_type: str
    domain: str
    attributes: tuple[tuple[str, AttrValue], ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    implicit_inputs: tuple[str, ...] = ()

    def attr(self, name: str, default: AttrValue | None = None) -> AttrValue | None:
        """The value of attribute ``name`` or ``default``."""
        for key, value in self.attributes:
            if key == name:
                return value
        return default

    @property
    def subgraphs(self) -> tuple[Graph, ...]:
        """Graph-valued attributes (If/Loop/Scan bodies), in attribute-name order."""
        if not self.attributes:  # most nodes: skip building an empty generator
            return ()
        return tuple(v for _, v in self.attributes if isinstance(v, Graph))


@dataclass(frozen=True)
class Edge:
    """A data-flow edge: tensor ``tensor`` flows from node ``src`` to input ``slot`` of ``dst``."""

    src: int
    dst: int
    tensor: str
    slot: int


@dataclass(frozen=True, eq=False)
class Graph:
    """A weight-free operator graph with inferred shapes.

    Attributes:
        nodes: operators in topological order.
        inputs: graph inputs that take data at run time (weights excluded).
        outputs: graph outputs.
        weights: constant tensors (initializers) by name: shape and dtype, no values.
        tensors: every tensor whose type is known, by name (inputs, weights, intermediates).
        opsets: domain → opset version.
        storage: the normalised weight-free ONNX model (the storage form), or a function
            that makes it on first use (a TFLite file read straight into the IR); empty for
            sub-graphs. Read it as :attr:`onnx_bytes`.
        source_format: the format of the file the graph was loaded from (``"onnx"``,
            ``"tflite"``).
        source_bytes: the original file, weights included, for runtimes that must run
            exactly that file (LiteRT, Vela). ``load`` leaves it empty for ONNX; the
            measurement path (``measure.backends.base.graph_for``) sets it to the ONNX
            model the user gave, which onnxruntime and OpenVINO then time.
        observed: tensors whose shapes static inference could not give and one run of the
            model did (:func:`nnlat.measure.observed_shapes.observe_shapes`), mapped to
            what inference gave (None: nothing). :attr:`tensors` holds the observed
            types, so costs and features see them; the hash reads these, so a graph
            hashes the same whether it was run or not.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> g = load(tiny_model())
        >>> [n.op_type for n in g.nodes]
        ['Conv', 'Relu']
    """

    nodes: tuple[Node, ...]
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    weights: Mapping[str, TensorSpec]
    tensors: Mapping[str, TensorSpec]
    opsets: Mapping[str, int] = field(default_factory=dict)
    storage: bytes | Callable[[], bytes] = b""
    source_format: str = "onnx"
    source_bytes: bytes = b""
    observed: Mapping[str, TensorSpec | None] = field(default_factory=dict)

    @cached_property
    def onnx_bytes(self) -> bytes:
        """The normalised weight-free ONNX model (the storage form); empty for sub-graphs."""
        return self.storage if isinstance(self.storage, bytes) else self.storage()

    @cached_property
    def producer(self) -> dict[str, int]:
        """Tensor name → index of the node that produces it."""
        return {out: i for i, node in enumerate(self.nodes) for out in node.outputs if out}

    @cached_property
    def edges(self) -> tuple[Edge, ...]:
        """Node-to-node data-flow edges, in consumer order.

        Implicit inputs of sub-graph-holding nodes get slots after the explicit inputs.
        """
        producer = self.producer
        return tuple(
            Edge(producer[name], dst, name, slot)
            for dst, node in enumerate(self.nodes)
            for slot, name in enumerate(node.inputs + node.implicit_inputs)
            if name in producer
        )

    @cached_property
    def _adjacency(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
        succ: list[list[int]] = [[] for _ in self.nodes]
        pred: list[list[int]] = [[] for _ in self.nodes]
        for e in self.edges:
            if e.dst not in succ[e.src]:
                succ[e.src].append(e.dst)
            if e.src not in pred[e.dst]:
                pred[e.dst].append(e.src)
        return tuple(map(tuple, succ)), tuple(map(tuple, pred))

    def successors(self, index: int) -> tuple[int, ...]:
        """Indices of the nodes that consume an output of node ``index``."""
        return self._adjacency[0][index]

    def predecessors(self, index: int) -> tuple[int, ...]:
        """Indices of the nodes whose outputs node ``index`` consumes."""
        return self._adjacency[1][index]

    @cached_property
    def consumers(self) -> dict[str, tuple[int, ...]]:
        """Tensor name → indices of the nodes that read it."""
        readers: dict[str, list[int]] = {}
        for i, node in enumerate(self.nodes):
            for name in node.inputs:
                if not name:
                    continue
                found = readers.get(name)
                if found is None:
                    readers[name] = [i]
                elif found[-1] != i:  # nodes come in order: a repeat is the last entry
                    found.append(i)
        return {k: tuple(v) for k, v in readers.items()}

    def inferred_spec(self, tensor: str) -> TensorSpec | None:
        """The type static inference gave ``tensor`` (before any observed shape)."""
        if tensor in self.observed:
            return self.observed[tensor]
        return self.tensors.get(tensor)

    def spec(self, tensor: str) -> TensorSpec | None:
        """The type of ``tensor`` if known."""
        return self.tensors.get(tensor)

    def node_inputs(self, index: int) -> tuple[TensorSpec | None, ...]:
        """Types of node ``index``'s inputs (None for omitted or unknown ones)."""
        return tuple(self.tensors.get(n) if n else None for n in self.nodes[index].inputs)

    def node_outputs(self, index: int) -> tuple[TensorSpec | None, ...]:
        """Types of node ``index``'s outputs (None for unknown ones)."""
        return tuple(self.tensors.get(n) if n else None for n in self.nodes[index].outputs)

    def walk(self) -> list[tuple[Graph, int]]:
        """Every (graph, node index), this graph's nodes and those of its sub-graphs."""
        found: list[tuple[Graph, int]] = []
        for i, node in enumerate(self.nodes):
            found.append((self, i))
            for sub in node.subgraphs:
                found.extend(sub.walk())
        return found
