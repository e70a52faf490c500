"""Inference batches built in one go: raw features → a PyG ``Batch``, without ``Data`` lists.

Training batches come from :func:`~nnlat.predictor.predictor.to_data` graphs collated by
PyG's ``DataLoader``, one Python object per graph. For prediction that per-graph work
costs about as much as a small network itself, so here a chunk of graphs is encoded at
once (:meth:`~nnlat.features.schema.FeatureSchema.encode_many`) and turned into the
same batch PyG would collate: ``x``, ``edge_index`` (offset per graph), ``global_x``,
``platform``, ``kernel`` (per-graph kernel ids, not offset, as
:func:`~nnlat.predictor.predictor.to_data` names it), ``batch`` and ``ptr``.
:func:`batches` takes an iterator too, so a network can start on the first graphs while
forked workers compute the features of the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice

import numpy as np
import torch
from torch import nn
from torch_geometric.data import Batch

from nnlat.features.raw import RawFeatures
from nnlat.features.schema import FeatureSchema

DEFAULT_BATCH_SIZE = 32
"""Graphs per inference batch: small batches keep the activations in the CPU's caches
(on a 2-core EPYC, NAS-Bench-201 graphs took about a quarter less CPU time in batches
of 32 than of 256)."""


def to_batch(
    schema: FeatureSchema, raws: Sequence[RawFeatures], platform: int | np.ndarray
) -> Batch:
    """The PyG batch of ``raws`` for the head ``platform`` (one int, or one per graph).

    Equal, attribute by attribute, to ``Batch.from_data_list`` of the
    :func:`~nnlat.predictor.predictor.to_data` graphs.

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> from nnlat.features.schema import FeatureSchema
        >>> raws = [r.raw for r in toy_records()[:3]]
        >>> batch = to_batch(FeatureSchema.fit(raws), raws, 0)
        >>> batch.num_graphs, batch.x.shape, batch.batch.tolist()
        (3, torch.Size([6, 26]), [0, 0, 1, 1, 2, 2])
        >>> batch.edge_index.tolist(), batch.platform.tolist()
        ([[0, 2, 4], [1, 3, 5]], [0, 0, 0])
    """
    features = schema.encode_many(raws)
    graphs = len(raws)
    counts = np.diff(features.ptr)
    platforms = np.broadcast_to(np.asarray(platform, dtype=np.int64), (graphs,))
    return Batch(
        x=torch.from_numpy(features.node_x),
        edge_index=torch.from_numpy(features.edge_index),
        global_x=torch.from_numpy(features.global_x),
        platform=torch.from_numpy(platforms.copy()),
        kernel=torch.from_numpy(features.kernel_ids),
        batch=torch.from_numpy(np.repeat(np.arange(graphs, dtype=np.int64), counts)),
        ptr=torch.from_numpy(features.ptr),
    )


def batches(
    schema: FeatureSchema,
    raws: Iterable[RawFeatures],
    platform: int | np.ndarray,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> Iterator[Batch]:
    """:func:`to_batch` of ``raws`` in chunks of ``batch_size`` graphs, in order.

    ``raws`` may be an iterator (features still being computed): each batch is built as
    soon as its graphs have come.
    """
    graphs = iter(raws)
    start = 0
    while chunk := list(islice(graphs, batch_size)):
        heads = platform if np.ndim(platform) == 0 else platform[start : start + len(chunk)]
        yield to_batch(schema, chunk, heads)
        start += len(chunk)


@contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Run torch on at most ``threads`` threads inside the block (as before after it).

    Forked feature workers busy the other cores meanwhile: torch threads waiting on each
    other there would stall at every operation.

    Example:
        >>> with torch_threads(1):
        ...     torch.get_num_threads()
        1
    """
    before = torch.get_num_threads()
    torch.set_num_threads(max(1, min(threads, before)))
    try:
        yield
    finally:
        torch.set_num_threads(before)


@torch.no_grad()
def predict_log_raw(
    net: nn.Module,
    schema: FeatureSchema,
    raws: Iterable[RawFeatures],
    platform: int | np.ndarray,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> np.ndarray:
    """Log-latency predictions of ``net`` for ``raws`` on the head(s) ``platform``, in order.

    The batched counterpart of :func:`~nnlat.predictor.training.predict_log` on
    :func:`~nnlat.predictor.predictor.to_data` graphs.

    Example:
        >>> from nnlat.testing.records import toy_predictor
        >>> predictor, records = toy_predictor()
        >>> raws = [r.raw for r in records]
        >>> predict_log_raw(predictor.net, predictor.schema, raws, 0, batch_size=5).shape
        (12,)
    """
    net.eval()
    device = next(net.parameters()).device
    out = [
        net(batch.to(device)).cpu().numpy() for batch in batches(schema, raws, platform, batch_size)
    ]
    return np.concatenate(out) if out else np.zeros(0)
