"""Search-space architectures as small *cell graphs*, the input BRP-NAS and HELP use.

Inside one search space an architecture is its choices, and BRP-NAS (Dudziak 2020, §3)
feeds its GCN the cell itself rather than the compiled network: for NAS-Bench-201 the
cell's DAG with one node per operation; for FBNet the chain of its 22 searchable layers.
Those graphs are ten times smaller than the ONNX graph of the network (8 or 24 nodes
against ~100-250), need no export, and so make the published tables usable whole on a
CPU: 15,625 NAS-Bench-201 graphs are built in about a second.

The graphs come as :class:`~nnlat.features.raw.RawFeatures`, so every predictor of
:mod:`nnlat.predictor` trains on them unchanged (the feature schema learns their
operator vocabulary: ``nb201:nor_conv_3x3``, ``fbnet:k5_e6``, ``input``, ``output``):

* NAS-Bench-201 (:func:`nasbench201_cell`): ``input`` → the operations on edges out of
  cell node 0; an operation on edge i→j feeds every operation on an edge out of node j;
  the operations on edges into node 3 feed ``output``. All nodes have zero numeric
  columns (every stage repeats the cell, so position says nothing).
  :func:`nasbench201_live_cell` reads the cell as it computes instead (no ``none``,
  skips as edges, operations whose result never reaches the output dropped), as
  BRP-NAS's code does.
* FBNet: ``input`` → layer 1 → … → layer 22 → ``output``; a layer's numeric columns
  carry what its position implies on the CIFAR skeleton: kernel size, stride, groups,
  input and output channels and resolution.

Per graph only the batch size is set (``graph_values[0]``); the cost totals stay 0.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from nnlat.datasets.published import LatencyTable, PublishedDataError
from nnlat.features.raw import GRAPH_COLUMNS, NODE_COLUMNS, RawFeatures
from nnlat.features.records import PUBLISHED, LatencyRecord
from nnlat.zoo import fbnet, nasbench201

CELL_FAMILY = {"nas-bench-201": "nasbench201-cell", "fbnet": "fbnet-cell"}
_COLUMN = {name: i for i, name in enumerate(NODE_COLUMNS)}


def _raw(
    op_types: Sequence[str], edges: Sequence[tuple[int, int]], node_values: np.ndarray, batch: int
) -> RawFeatures:
    graph_values = np.zeros(len(GRAPH_COLUMNS))
    graph_values[GRAPH_COLUMNS.index("batch_size")] = batch
    graph_values[GRAPH_COLUMNS.index("nodes")] = len(op_types)
    return RawFeatures(
        op_types=tuple(op_types),
        node_values=node_values,
        edge_index=np.array(sorted(edges), dtype=np.int64).reshape(-1, 2).T.copy(),
        graph_values=graph_values,
        kernel_ids=np.arange(len(op_types), dtype=np.int64),
    )


def nasbench201_cell(arch: str, batch_size: int = 1) -> RawFeatures:
    """The operation-per-node DAG of a NAS-Bench-201 cell (8 nodes).

    Example:
        >>> cell = "|nor_conv_3x3~0|+|skip_connect~0|none~1|+|none~0|none~1|avg_pool_3x3~2|"
        >>> raw = nasbench201_cell(cell)
        >>> raw.op_types[:3], len(raw.op_types)
        (('input', 'nb201:nor_conv_3x3', 'nb201:skip_connect'), 8)
        >>> raw.edge_index.T.tolist()[:4]
        [[0, 1], [0, 2], [0, 4], [1, 3]]
    """
    ops: list[str] = ["input"]
    into: dict[int, list[int]] = {0: [0]}  # cell node → graph nodes whose sum it is
    out_of: list[tuple[int, int]] = []  # (graph node, the cell node it reads from)
    try:
        cell = nasbench201.parse_arch(arch)
    except ValueError as error:
        raise PublishedDataError(str(error)) from None
    for target, edges in enumerate(cell, start=1):
        for op, source in edges:
            ops.append(f"nb201:{op}")
            into.setdefault(target, []).append(len(ops) - 1)
            out_of.append((len(ops) - 1, source))
    ops.append("output")
    pairs = [(producer, node) for node, source in out_of for producer in into[source]]
    pairs += [(producer, len(ops) - 1) for producer in into[len(cell)]]
    return _raw(ops, pairs, np.zeros((len(ops), len(NODE_COLUMNS))), batch_size)


def nasbench201_live_cell(arch: str, batch_size: int = 1) -> RawFeatures:
    """The NAS-Bench-201 cell as it computes: only operations that do work and matter.

    :func:`nasbench201_cell` keeps all six operations. This graph is BRP-NAS's input
    as its authors build it: a ``none`` operation (zeros) is dropped with its edges; a
    ``skip_connect`` is dropped and its producers wired straight to its consumers; then
    every operation that does not lie on a path from ``input`` to ``output`` is dropped
    (its result never reaches the output, so a compiled network does not run it). Cells
    that compute the same thing get the same graph, whatever their dead operations.

    Example:
        >>> cell = "|nor_conv_3x3~0|+|skip_connect~0|none~1|+|none~0|none~1|avg_pool_3x3~2|"
        >>> raw = nasbench201_live_cell(cell)
        >>> raw.op_types
        ('input', 'nb201:avg_pool_3x3', 'output')
        >>> raw.edge_index.T.tolist()
        [[0, 1], [1, 2]]
    """
    full = nasbench201_cell(arch, batch_size)
    ops, last = full.op_types, len(full.op_types) - 1
    producers: dict[int, set[int]] = {n: set() for n in range(len(ops))}
    consumers: dict[int, set[int]] = {n: set() for n in range(len(ops))}
    for producer, consumer in full.edge_index.T.tolist():
        producers[consumer].add(producer)
        consumers[producer].add(consumer)
    # Node order is topological, so a skip's producers are final when it is bypassed.
    for node, op in enumerate(ops):
        if op not in ("nb201:none", "nb201:skip_connect"):
            continue
        passes_on = op == "nb201:skip_connect"  # a skip forwards its input, a none nothing
        before, after = producers.pop(node), consumers.pop(node)
        for producer in before:
            consumers[producer].discard(node)
            consumers[producer] |= after if passes_on else set()
        for consumer in after:
            producers[consumer].discard(node)
            producers[consumer] |= before if passes_on else set()
    live = (_reachable(0, consumers) & _reachable(last, producers)) | {0, last}
    index = {node: i for i, node in enumerate(sorted(live))}
    edges = [(index[a], index[b]) for a in live for b in consumers.get(a, ()) if b in live]
    kept = [ops[node] for node in sorted(live)]
    return _raw(kept, edges, np.zeros((len(kept), len(NODE_COLUMNS))), batch_size)


def _reachable(start: int, neighbours: dict[int, set[int]]) -> set[int]:
    """Nodes reachable from ``start`` along ``neighbours`` (``start`` included)."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in neighbours.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def fbnet_chain(arch: str, batch_size: int = 1) -> RawFeatures:
    """The chain of an FBNet architecture's 22 layers, with each layer's shape (24 nodes).

    Example:
        >>> raw = fbnet_chain("-".join(["k3_e1"] * 21 + ["skip"]))
        >>> raw.op_types[1], raw.op_types[-2], raw.edge_index.shape
        ('fbnet:k3_e1', 'fbnet:skip', (2, 23))
        >>> int(raw.node_values[-2, NODE_COLUMNS.index("out_d1")])
        352
    """
    try:
        config = fbnet.arch_config(arch)
    except ValueError as error:
        raise PublishedDataError(str(error)) from None
    layers = fbnet.parse_arch(config["arch"])
    values = np.zeros((len(layers) + 2, len(NODE_COLUMNS)))
    channels, size = config["stem_channels"], config["resolution"] // config["stem_stride"]
    strides = [s if i == 0 else 1 for n, _, s in config["stages"] for i in range(n)]
    widths = [c for n, c, _ in config["stages"] for _ in range(n)]
    for row, (op, stride, width) in enumerate(zip(layers, strides, widths, strict=True), 1):
        kernel = 0 if op == "skip" else int(op[1])
        out_size = size // stride
        for column, value in {
            "kernel_h": kernel, "kernel_w": kernel, "stride_h": stride, "stride_w": stride,
            "group": 2 if op.endswith("_g2") else 1,
            "in_d1": channels, "in_d2": size, "in_d3": size,
            "out_d1": width, "out_d2": out_size, "out_d3": out_size,
        }.items():  # fmt: skip
            values[row, _COLUMN[column]] = value
        channels, size = width, out_size
    ops = ["input", *(f"fbnet:{op}" for op in layers), "output"]
    return _raw(ops, [(i, i + 1) for i in range(len(ops) - 1)], values, batch_size)


CELL_BUILDERS = {"nas-bench-201": nasbench201_cell, "fbnet": fbnet_chain}


def cell_key(space: str, arch: str) -> str:
    """A stable id for an architecture's cell graph (the records' ``graph_hash``).

    Example:
        >>> cell_key("fbnet", "k3_e1-skip") == cell_key("fbnet", "k3_e1-skip")
        True
    """
    return hashlib.sha256(f"{space}:{arch}".encode()).hexdigest()[:32]


def cell_archs(table: LatencyTable) -> dict[str, str]:
    """Cell key → architecture string of every architecture of ``table``."""
    return {cell_key(table.space, arch): arch for arch in table.archs}


def cell_records(table: LatencyTable, device: str) -> list[LatencyRecord]:
    """One record per architecture with a latency on ``device`` (a column of ``table``).

    The platform of each record is the device's *column* name (``1080ti_32``), so two
    batch sizes of one device are two heads of a multi-platform predictor.

    Raises:
        PublishedDataError: no such device, or a malformed architecture.

    Example:
        >>> from pathlib import Path
        >>> from nnlat.datasets.published import device_column
        >>> t = LatencyTable(Path("x.csv"), "fbnet", [0, 1], ["-".join(["skip"] * 22)] * 2,
        ...                  [device_column("pixel3", "help")], np.array([[4.0], [np.nan]]))
        >>> [(r.platform, r.latency_ms, len(r.raw.op_types)) for r in cell_records(t, "pixel3")]
        [('pixel3', 4.0, 24)]
    """
    column = table.device(device)
    index = table.devices.index(column)
    build = CELL_BUILDERS[table.space]
    return [
        LatencyRecord(
            graph_hash=cell_key(table.space, arch),
            family=CELL_FAMILY[table.space],
            platform=column.column,
            batch_size=column.batch_size,
            latency_ms=float(ms),
            raw=build(arch, column.batch_size),
            source=PUBLISHED,
        )
        for arch, ms in zip(table.archs, table.latencies_ms[:, index], strict=True)
        if np.isfinite(ms)
    ]
