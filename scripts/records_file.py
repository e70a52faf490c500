"""Move a training set between machines: records written once here, read on a GPU machine.

A lent GPU machine has neither the measurement database nor the feature cache, and
rebuilding every graph there would cost its whole lease. So the studies write their
records (:class:`~nnlat.features.records.LatencyRecord`, features included) to one
gzipped pickle and read it back there. It is our own file, written by these scripts:
never read one from anyone else (unpickling runs code).
"""

from __future__ import annotations

import dataclasses
import gzip
import pickle
from pathlib import Path

from nnlat.features.records import LatencyRecord


def write_records(path: Path, records: list[LatencyRecord]) -> None:
    """Write ``records`` to ``path`` (gzipped pickle).

    A graph measured on several platforms is one record per platform with equal
    features: they are written once (pickle keeps one copy of a shared object), which
    halves a multi-platform file.
    """
    shared: dict[tuple[str, bytes], object] = {}
    compact = []
    for record in records:
        key = (record.graph_hash, record.raw.graph_values.tobytes())
        raw = shared.setdefault(key, record.raw)
        compact.append(dataclasses.replace(record, raw=raw))
    with gzip.open(path, "wb") as f:
        pickle.dump(compact, f)


def read_records(path: Path) -> list[LatencyRecord]:
    """The records :func:`write_records` wrote to ``path``."""
    with gzip.open(path, "rb") as f:
        return pickle.load(f)
