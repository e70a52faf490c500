"""The store's counters (cache lookups) and the row counts ``nnlat db stats`` prints."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from nnlat.store.records import StoreStats
from nnlat.store.tables import CounterRow, MeasurementRow, ModelRow, PlatformRow

HITS, MISSES = "lookup_hits", "lookup_misses"
"""Names of the cache lookup counters."""


def bump(session: Session, name: str, count: int = 1) -> None:
    """Add to a counter, atomically (the row is re-created if deleted by hand)."""
    bumped = session.execute(
        sa.update(CounterRow).where(CounterRow.name == name).values(value=CounterRow.value + count)
    )
    if bumped.rowcount == 0:  # type: ignore[attr-defined]
        session.add(CounterRow(name=name, value=count))


def read_stats(session: Session, url: str) -> StoreStats:
    """Row counts by status and platform, and the lookup counters, of the database at ``url``."""
    count = sa.func.count()
    by_status = session.execute(
        sa.select(MeasurementRow.status, count).group_by(MeasurementRow.status)
    )
    by_platform = session.execute(
        sa.select(PlatformRow.name, count)
        .join(MeasurementRow, MeasurementRow.platform_id == PlatformRow.id)
        .group_by(PlatformRow.name)
    )
    counters = dict(session.execute(sa.select(CounterRow.name, CounterRow.value)).all())
    statuses = {status: n for status, n in by_status}
    return StoreStats(
        url=url,
        models=session.scalar(sa.select(count).select_from(ModelRow)) or 0,
        platforms=session.scalar(sa.select(count).select_from(PlatformRow)) or 0,
        measurements=sum(statuses.values()),
        measurements_by_status=statuses,
        measurements_by_platform=dict(sorted((name, n) for name, n in by_platform)),
        lookup_hits=counters.get(HITS, 0),
        lookup_misses=counters.get(MISSES, 0),
    )
