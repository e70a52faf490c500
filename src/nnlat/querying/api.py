"""``nnlat.query()``: the one-call form, on the embedded defaults."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.platform import Platform
from nnlat.querying.engine import QueryEngine, QueryResult


@functools.cache
def _engine(db_url: str | None) -> QueryEngine:
    # One engine per database per process, so concurrent identical queries share its locks.
    from nnlat.store import Store

    return QueryEngine(Store.open(db_url))


def query(
    model: Any,
    platform: Platform | str,
    batch_size: int = 1,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    refresh: bool = False,
    inputs: Mapping[str, np.ndarray] | str | Path | None = None,
    db_url: str | None = None,
) -> QueryResult:
    """The true latency of ``model`` on ``platform``, measured once and then cached.

    Args:
        model: a path, ONNX bytes, an ``onnx.ModelProto``, a ``Graph`` or a zoo model.
        platform: a platform of this host (``nnlat platforms`` lists them) — or any
            platform already in the database, for a cache hit.
        batch_size: dimension 0 of every input.
        input_shapes: input name → shape overrides.
        refresh: measure again and replace the stored result.
        inputs: real input arrays or an .npz path (default: seeded random data).
        db_url: the database (default: ``NNLAT_DB_URL``, else SQLite in the user data dir).

    Returns:
        A :class:`QueryResult`; ``result.measurement.stats.median_ms`` is the latency.
    """
    return _engine(db_url).query(
        model, platform, batch_size, input_shapes, refresh=refresh, inputs=inputs
    )
