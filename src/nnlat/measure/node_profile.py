"""A runtime's per-node profile: read onnxruntime's trace, attribute times to graph nodes.

onnxruntime's profiler (``SessionOptions.enable_profiling``) writes a Chrome trace: one
``"Session"`` event ``model_run`` per run and one ``"Node"`` event ``<name>_kernel_time``
per kernel executed, with the runtime's ``op_name``. :func:`trace_node_times` turns it
into each node's median time per run (the first runs, warm-up, dropped).

The names are those of the runtime's *optimised* graph, so they are attributed to the
measured graph's top-level nodes (:func:`attribute`) by these rules, in order:

1. the name of a node of the graph (kernels onnxruntime kept as they were);
2. the name less what onnxruntime's rewrites add (the prefix ``fused `` of a
   ``FusedGemm``/``FusedConv``; the suffixes ``_nchwc``, ``_token_<n>``, ``_new_reshape``,
   ``/MatMulAddFusion``, ``/MatMulScaleFusion/``), read as a node name or as a tensor
   name and then its producer: ``/2/Relu_output_0_nchwc`` is the NCHWc kernel writing
   ``/2/Relu_output_0``;
3. a fused kernel is credited to the node of its own operator (``Fused<Op>`` counting as
   ``<Op>``): when the node found computes another operator than the kernel's (``Relu``
   for an NCHWc ``Conv`` that has absorbed it), its first input's producers are followed
   back (at most :data:`MAX_FUSION_DEPTH` steps) to a node of the kernel's operator;
4. a kernel that runs inside a control-flow body (an ``If`` branch, a ``Loop`` or
   ``Scan`` body, at any depth), found by rule 1 or 2 among the body's node and tensor
   names, is credited to the top-level node that holds the body: what a recurrent model
   spends in its loop is the ``Loop`` node's time.

What matches nothing (layout reorders the runtime inserts, anonymous fusions such as a
``Gelu`` built of five nodes) keeps ``node_index = None``: its time counts in the total
but no node is credited. Nodes no kernel is credited to (fused away, folded) have no
target at all, rather than a zero one (:func:`node_shares`).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nnlat.graph.ir import Graph
from nnlat.measure.types import NodeProfile, NodeTime

KERNEL_SUFFIX = "_kernel_time"
MAX_FUSION_DEPTH = 3
_FUSED_PREFIX = "fused "  # FusedGemm, FusedConv: "fused /35/Gemm"
# Suffixes onnxruntime's graph transformers append to the nodes they create.
_REWRITE_SUFFIX = re.compile(r"(_nchwc|_token_\d+|_new_reshape|/[A-Za-z]+Fusion/?)$")


def trace_node_times(
    events: Sequence[Mapping[str, Any]], skip_runs: int = 1
) -> list[tuple[str, str, float]]:
    """Each node's median kernel time per run (ms), from an onnxruntime profile trace.

    Args:
        events: the trace's events (the JSON list ``end_profiling`` wrote).
        skip_runs: the first runs to leave out (warm-up).

    Returns:
        ``(name, op, ms)`` per node, in the order of first execution; a node missing
        from a run counts 0 there, one executed several times in a run (inside a loop)
        counts its sum.

    Example:
        >>> run = lambda ts: {"cat": "Session", "name": "model_run", "ts": ts, "dur": 50}
        >>> node = lambda ts, us: {"cat": "Node", "name": "c_kernel_time", "ts": ts,
        ...                        "dur": us, "args": {"op_name": "Conv"}}
        >>> trace_node_times([run(0), node(1, 9), run(100), node(101, 2), run(200),
        ...                   node(201, 4)])
        [('c', 'Conv', 0.003)]
    """
    runs = sorted(
        (int(e["ts"]), int(e["ts"]) + int(e["dur"]))
        for e in events
        if e.get("cat") == "Session" and e.get("name") == "model_run"
    )[skip_runs:]
    per_run: dict[str, list[float]] = {}
    ops: dict[str, str] = {}
    for event in events:
        name = str(event.get("name", ""))
        if event.get("cat") != "Node" or not name.endswith(KERNEL_SUFFIX):
            continue
        ts = int(event["ts"])
        run = next((i for i, (start, end) in enumerate(runs) if start <= ts <= end), None)
        if run is None:  # a warm-up run's
            continue
        node = name.removesuffix(KERNEL_SUFFIX)
        ops.setdefault(node, str(event.get("args", {}).get("op_name", "")))
        times = per_run.setdefault(node, [0.0] * len(runs))
        times[run] += int(event["dur"]) / 1e3
    return [(node, ops[node], statistics.median(times)) for node, times in per_run.items()]


def _candidates(name: str) -> list[str]:
    found = [name.removeprefix(_FUSED_PREFIX)]
    while (stripped := _REWRITE_SUFFIX.sub("", found[-1])) != found[-1]:
        found.append(stripped)
    return found


def _anchor(graph: Graph, index: int, op: str, producer: Mapping[str, int]) -> int:
    """The node of the kernel's operator ``op`` at or just before ``index`` (rule 3)."""
    op = op.removeprefix("Fused")
    current = index
    for _ in range(MAX_FUSION_DEPTH + 1):
        node = graph.nodes[current]
        if node.op_type == op:
            return current
        first = next((name for name in node.inputs if name), None)
        if first is None or first not in producer:
            break
        current = producer[first]
    return index


def attribute(graph: Graph, times: Sequence[tuple[str, str, float]]) -> tuple[NodeTime, ...]:
    """The kernels of a profile, each credited to a top-level node of ``graph`` if one
    matches (rules in the module docstring).

    Args:
        graph: the measured graph (the IR the features are computed from).
        times: ``(name, op, ms)`` per kernel (:func:`trace_node_times`).

    Returns:
        One :class:`NodeTime` per kernel, in order.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> graph = load(tiny_model())
        >>> [(n.op_type, n.outputs) for n in graph.nodes]
        [('Conv', ('y',)), ('Relu', ('z',))]
        >>> [t.node_index for t in attribute(graph, [("z_nchwc", "Conv", 1.0),
        ...                                          ("ReorderOutput", "ReorderOutput", 0.1)])]
        [0, None]
    """
    by_name: dict[str, int] = {}
    for index, node in enumerate(graph.nodes):
        if node.name:
            by_name.setdefault(node.name, index)
    producer = {out: i for i, node in enumerate(graph.nodes) for out in node.outputs if out}
    inside = _body_names(graph)
    found = []
    for name, op, ms in times:
        index = None
        for candidate in _candidates(name):
            index = by_name.get(candidate, producer.get(candidate))
            if index is not None:
                index = _anchor(graph, index, op, producer)
                break
        else:
            index = next((inside[c] for c in _candidates(name) if c in inside), None)
        found.append(NodeTime(name=name, op=op, ms=ms, node_index=index))
    return tuple(found)


def _body_names(graph: Graph) -> dict[str, int]:
    """Every node and tensor name inside a top-level node's bodies → that node (rule 4)."""
    names: dict[str, int] = {}
    for index, node in enumerate(graph.nodes):
        pending = list(node.subgraphs)
        while pending:
            body = pending.pop()
            for inner in body.nodes:
                for name in (inner.name, *inner.outputs):
                    if name:
                        names.setdefault(name, index)
                pending.extend(inner.subgraphs)
    return names


def node_shares(profile: NodeProfile, nodes: int) -> np.ndarray | None:
    """Each node's share of the profiled total; NaN for nodes no kernel is credited to.

    Args:
        profile: the measurement's profile.
        nodes: the number of top-level nodes of the graph.

    Returns:
        float64 array of ``nodes`` shares, or None when nothing is credited, the total
        is zero, or an index is out of range (the profile is of another graph).

    Example:
        >>> p = NodeProfile(runtime="ort", runtime_version="1", runs=3, nodes=(
        ...     NodeTime(name="a", op="Conv", ms=3.0, node_index=0),
        ...     NodeTime(name="r", op="ReorderOutput", ms=1.0)))
        >>> node_shares(p, 2).tolist()
        [0.75, nan]
    """
    total = profile.total_ms()
    credited = [(t.node_index, t.ms) for t in profile.nodes if t.node_index is not None]
    if total <= 0 or not credited or any(not 0 <= i < nodes for i, _ in credited):
        return None
    shares = np.full(nodes, np.nan)
    for index, ms in credited:
        shares[index] = (0.0 if np.isnan(shares[index]) else shares[index]) + ms / total
    return shares
