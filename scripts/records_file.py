"""Move a training set between machines: records written once here, read on a GPU machine.

A lent GPU machine has neither the measurement database nor the feature cache, and
rebuilding every graph there would cost its whole lease. So the studies write their
records (:class:`~nnlat.features.records.LatencyRecord`, features included) to one
gzipped pickle and read it back there. It is our own file, written by these scripts:
never read one from anyone else (unpickling runs code).
"""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path

from nnlat.features.records import LatencyRecord


def write_records(path: Path, records: list[LatencyRecord]) -> None:
    """Write ``records`` to ``path`` (gzipped pickle)."""
    with gzip.open(path, "wb") as f:
        pickle.dump(records, f)


def read_records(path: Path) -> list[LatencyRecord]:
    """The records :func:`write_records` wrote to ``path``."""
    with gzip.open(path, "rb") as f:
        return pickle.load(f)
