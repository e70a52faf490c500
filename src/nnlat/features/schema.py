"""Raw features → model inputs: an operator vocabulary and scalers fitted on training data.

A :class:`FeatureSchema` is learned from the training graphs (:meth:`FeatureSchema.fit`)
and saved with every checkpoint (:meth:`to_dict`): the operator vocabulary (one-hot
columns, plus an explicit ``<other>`` slot so an operator unseen in training is still
visible to the model and reported), and one :class:`Standardizer` each for node and
graph values (``log1p``, then zero mean and unit variance per column). Nothing is
hand-set: a column that is constant in training gets a unit scale.

Bump :data:`FEATURE_SCHEMA_VERSION` when :mod:`nnlat.features.raw` or the encoding
changes; a checkpoint of another version refuses to load.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.raw import GRAPH_COLUMNS, NODE_COLUMNS, RawFeatures

FEATURE_SCHEMA_VERSION = 1
OTHER = "<other>"


class FeatureSchemaError(NnlatError):
    """A saved feature schema does not match this version of nnlat."""


# Below this std (on the log1p scale) a column counts as constant.
_CONSTANT_STD = 1e-6


@dataclass(frozen=True)
class Standardizer:
    """``(log1p(x) - mean) / std`` per column, fitted on training rows.

    A column constant in training keeps std 1, so unseen values stay on the log scale.

    Example:
        >>> s = Standardizer.fit(np.array([[0.0, 1.0], [np.e - 1, 1.0], [0.0, 1.0]]))
        >>> s.transform(np.array([[np.e - 1, 1.0], [0.0, 3.0]])).astype(float).round(2).tolist()
        [[1.41, 0.0], [-0.71, 0.69]]
    """

    mean: tuple[float, ...]
    std: tuple[float, ...]

    @classmethod
    def fit(cls, values: np.ndarray) -> Standardizer:
        """Fit on rows × columns of non-negative values."""
        logs = np.log1p(np.maximum(values, 0.0))
        std = logs.std(axis=0)
        # A column constant in training (batch size 1 throughout, say) can come out with a
        # std of 1e-16 from rounding; dividing by it would blow any other value up to 1e13.
        constant = std < _CONSTANT_STD
        return cls(tuple(logs.mean(axis=0).tolist()), tuple(np.where(constant, 1.0, std).tolist()))

    def transform(self, values: np.ndarray) -> np.ndarray:
        """Scale rows × columns (float32)."""
        logs = np.log1p(np.maximum(values, 0.0))
        return ((logs - np.asarray(self.mean)) / np.asarray(self.std)).astype(np.float32)


@dataclass(frozen=True)
class GraphFeatures:
    """A graph as a predictor sees it.

    Attributes:
        node_x: float32, nodes × (vocabulary + 1 + node columns): one-hot operator
            (the last vocabulary slot is ``<other>``), then scaled node values.
        edge_index: int64, 2 × edges.
        global_x: float32, scaled graph values.
        unseen_ops: operators encoded as ``<other>`` (not in the training vocabulary).
        kernel_ids: int64 per node, its fused kernel (as in :class:`RawFeatures`), for
            kernel-level networks.
    """

    node_x: np.ndarray
    edge_index: np.ndarray
    global_x: np.ndarray
    unseen_ops: tuple[str, ...]
    kernel_ids: np.ndarray


@dataclass(frozen=True)
class BatchFeatures:
    """Many graphs encoded as one disjoint union (:meth:`FeatureSchema.encode_many`).

    Attributes:
        node_x: float32, all nodes × node width, graph after graph (as ``node_x`` of
            :class:`GraphFeatures`).
        edge_index: int64, 2 × edges, into the union's node numbering.
        global_x: float32, graphs × graph width.
        kernel_ids: int64 per node, numbered per graph (not offset).
        ptr: int64, graphs + 1: the nodes of graph ``g`` are ``ptr[g]:ptr[g + 1]``.
    """

    node_x: np.ndarray
    edge_index: np.ndarray
    global_x: np.ndarray
    kernel_ids: np.ndarray
    ptr: np.ndarray


@dataclass(frozen=True)
class FeatureSchema:
    """The vocabulary and scalers that turn :class:`RawFeatures` into :class:`GraphFeatures`.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.features.raw import raw_features
        >>> from nnlat.testing import tiny_model
        >>> raw = raw_features(load(tiny_model()))
        >>> schema = FeatureSchema.fit([raw])
        >>> schema.op_vocab
        ('Conv', 'Relu', '<other>')
        >>> schema.encode(raw).node_x.shape
        (2, 26)
        >>> schema.encode(raw).kernel_ids.tolist()  # Conv and Relu fuse into one kernel
        [0, 0]
    """

    op_vocab: tuple[str, ...]
    node_scaler: Standardizer
    graph_scaler: Standardizer
    version: int = FEATURE_SCHEMA_VERSION

    @classmethod
    def fit(cls, raws: Iterable[RawFeatures], min_op_count: int = 1) -> FeatureSchema:
        """Learn the vocabulary and the scalers from training graphs.

        Args:
            raws: the training graphs' raw features.
            min_op_count: operators seen in fewer graphs than this go to ``<other>``.

        Raises:
            NnlatError: no training graphs.
        """
        raws = list(raws)
        if not raws:
            raise NnlatError("cannot fit a feature schema on no graphs")
        seen = Counter(op for raw in raws for op in set(raw.op_types))
        vocab = tuple(sorted(op for op, n in seen.items() if n >= min_op_count and op != OTHER))
        return cls(
            op_vocab=(*vocab, OTHER),
            node_scaler=Standardizer.fit(np.concatenate([r.node_values for r in raws])),
            graph_scaler=Standardizer.fit(np.stack([r.graph_values for r in raws])),
        )

    @property
    def node_dim(self) -> int:
        """Width of ``node_x``."""
        return len(self.op_vocab) + len(NODE_COLUMNS)

    @property
    def global_dim(self) -> int:
        """Width of ``global_x``."""
        return len(GRAPH_COLUMNS)

    def unseen_ops(self, raw: RawFeatures) -> tuple[str, ...]:
        """The operators of ``raw`` not in the vocabulary (encoded as ``<other>``), sorted.

        Example:
            >>> schema = FeatureSchema(("Conv", OTHER), Standardizer((0.0,), (1.0,)),
            ...                        Standardizer((0.0,), (1.0,)))
            >>> raw = RawFeatures(("Relu", "Conv", "Gelu", "Relu"), np.zeros((4, 1)),
            ...                   np.zeros((2, 0), np.int64), np.zeros(1), np.zeros(4, np.int64))
            >>> schema.unseen_ops(raw)
            ('Gelu', 'Relu')
        """
        vocab = set(self.op_vocab)
        return tuple(sorted({op for op in raw.op_types if op not in vocab}))

    def encode(self, raw: RawFeatures) -> GraphFeatures:
        """One-hot the operators and scale the values of one graph."""
        return GraphFeatures(
            node_x=self._node_x(raw.op_types, raw.node_values),
            edge_index=raw.edge_index,
            global_x=self.graph_scaler.transform(raw.graph_values[None, :])[0],
            unseen_ops=self.unseen_ops(raw),
            kernel_ids=raw.kernel_ids,
        )

    def encode_many(self, raws: Sequence[RawFeatures]) -> BatchFeatures:
        """Encode many graphs at once, as one disjoint union (a batch).

        Gives the rows of :meth:`encode` of each graph, concatenated, with edge indices
        offset to the union's node numbering: one scaler transform and one one-hot for
        the whole batch instead of one per graph.

        Example:
            >>> from nnlat.graph import load
            >>> from nnlat.features.raw import raw_features
            >>> from nnlat.testing import tiny_model
            >>> raw = raw_features(load(tiny_model()))
            >>> schema = FeatureSchema.fit([raw])
            >>> batch = schema.encode_many([raw, raw])
            >>> batch.ptr.tolist(), batch.edge_index.tolist(), batch.global_x.shape
            ([0, 2, 4], [[0, 2], [1, 3]], (2, 7))
            >>> bool((batch.node_x[2:] == schema.encode(raw).node_x).all())
            True
        """
        counts = np.array([len(raw.op_types) for raw in raws], dtype=np.int64)
        ptr = np.zeros(len(raws) + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        edges = [raw.edge_index.reshape(2, -1) for raw in raws]
        offsets = np.repeat(ptr[:-1], [e.shape[1] for e in edges])
        width = len(GRAPH_COLUMNS)
        return BatchFeatures(
            node_x=self._node_x(
                [op for raw in raws for op in raw.op_types],
                _concat([raw.node_values for raw in raws], (0, len(NODE_COLUMNS)), np.float64),
            ),
            edge_index=_concat(edges, (2, 0), np.int64, axis=1) + offsets,
            global_x=self.graph_scaler.transform(
                _stack([raw.graph_values for raw in raws], width)
            ).reshape(-1, width),
            kernel_ids=_concat([raw.kernel_ids for raw in raws], (0,), np.int64),
            ptr=ptr,
        )

    def _node_x(self, op_types: Sequence[str], node_values: np.ndarray) -> np.ndarray:
        """One-hot operators (unknown ones in the ``<other>`` slot), then scaled values."""
        index = {op: i for i, op in enumerate(self.op_vocab)}
        slots = np.fromiter(
            map(index.get, op_types, repeat(index[OTHER])), dtype=np.int64, count=len(op_types)
        )
        node_x = np.zeros((len(slots), self.node_dim), dtype=np.float32)
        node_x[np.arange(len(slots)), slots] = 1.0
        node_x[:, len(self.op_vocab) :] = self.node_scaler.transform(node_values)
        return node_x

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form, stored in checkpoint sidecars."""
        return {
            "version": self.version,
            "node_columns": list(NODE_COLUMNS),
            "graph_columns": list(GRAPH_COLUMNS),
            "op_vocab": list(self.op_vocab),
            "node_scaler": {"mean": self.node_scaler.mean, "std": self.node_scaler.std},
            "graph_scaler": {"mean": self.graph_scaler.mean, "std": self.graph_scaler.std},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FeatureSchema:
        """Inverse of :meth:`to_dict`.

        Raises:
            FeatureSchemaError: the schema was saved by an incompatible nnlat version.
        """
        version = data.get("version")
        columns = (tuple(data.get("node_columns", ())), tuple(data.get("graph_columns", ())))
        if version != FEATURE_SCHEMA_VERSION or columns != (NODE_COLUMNS, GRAPH_COLUMNS):
            raise FeatureSchemaError(
                f"feature schema version {version} does not match this nnlat's "
                f"{FEATURE_SCHEMA_VERSION} (or its columns differ): retrain the predictor "
                "with `nnlat train`"
            )
        return cls(
            op_vocab=tuple(data["op_vocab"]),
            node_scaler=_standardizer(data["node_scaler"]),
            graph_scaler=_standardizer(data["graph_scaler"]),
        )


def _concat(
    arrays: Sequence[np.ndarray], empty: tuple[int, ...], dtype: type, axis: int = 0
) -> np.ndarray:
    """``np.concatenate``, or an empty array of shape ``empty`` when there is nothing."""
    return np.concatenate(arrays, axis=axis) if arrays else np.zeros(empty, dtype=dtype)


def _stack(arrays: Sequence[np.ndarray], width: int) -> np.ndarray:
    """``np.stack``, or an empty 0 × ``width`` array when there is nothing."""
    return np.stack(arrays) if arrays else np.zeros((0, width))


def _standardizer(data: Mapping[str, Sequence[float]]) -> Standardizer:
    return Standardizer(tuple(data["mean"]), tuple(data["std"]))
