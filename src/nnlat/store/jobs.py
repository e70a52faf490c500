"""The farm's jobs in the database: one row per cache key, so a key is measured once.

:class:`Jobs` is reached as ``store.jobs``. Opening a job for a key that already has a
queued or running one joins it (``created`` is False): identical queries from many
processes or hosts share one measurement because the insert of the second one fails on
the unique key. A finished job for the key is re-opened in place (a refresh, or a retry
after a failure); the conditional update lets only one submitter re-open it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.orm import Session

from nnlat.measure.types import PROTOCOL_VERSION
from nnlat.store.database import Database
from nnlat.store.errors import StoreError
from nnlat.store.keys import canonical_input_shapes, input_shapes_hash, parse_input_shapes
from nnlat.store.records import Job, JobState
from nnlat.store.tables import JobRow, utcnow

_FINISHED = ("done", "failed")


def _to_job(row: JobRow) -> Job:
    return Job(
        id=row.id,
        graph_hash=row.graph_hash,
        platform=row.platform,
        batch_size=row.batch_size,
        input_shapes=parse_input_shapes(row.input_shapes),
        protocol_version=row.protocol_version,
        refresh=row.refresh,
        state=row.state,  # type: ignore[arg-type]  # the check constraint keeps it valid
        attempts=row.attempts,
        error=row.error,
        worker=row.worker,
        measurement_status=row.measurement_status,
        measure_seconds=row.measure_seconds,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


class Jobs:
    """The jobs table of one store.

    Example:
        >>> from nnlat.store import Store
        >>> store = Store.open("sqlite://")
        >>> job, created = store.jobs.open("0123456789abcdef", "cpu-ort1.0-fp32-t1", 1, {})
        >>> again, joined_created = store.jobs.open("0123456789abcdef", "cpu-ort1.0-fp32-t1", 1, {})
        >>> created, joined_created, again.id == job.id, again.state
        (True, False, True, 'queued')
    """

    def __init__(self, database: Database) -> None:
        """Work in ``database`` (the store's)."""
        self._database = database

    def open(
        self,
        graph_hash: str,
        platform: str,
        batch_size: int,
        input_shapes: Mapping[str, Sequence[int]],
        *,
        refresh: bool = False,
        protocol_version: int = PROTOCOL_VERSION,
        stale_after_s: float | None = None,
    ) -> tuple[Job, bool]:
        """The job for this cache key, created or re-opened if none is under way.

        Args:
            graph_hash, platform, batch_size, input_shapes, protocol_version: the key.
            refresh: measure even if a result is stored.
            stale_after_s: a job ``running`` for longer than this counts as finished
                (abandoned) and is re-opened; None never gives up on a running job.

        Returns:
            ``(job, created)``: ``created`` is True when the caller must dispatch it (a
            new job, or a finished one re-opened), False when it joined a queued or
            running one.
        """
        canonical = canonical_input_shapes(input_shapes)
        key = {
            "graph_hash": graph_hash,
            "platform": platform,
            "batch_size": batch_size,
            "input_shapes_hash": input_shapes_hash(canonical),
            "protocol_version": protocol_version,
        }

        def work(session: Session) -> tuple[Job, bool]:
            where = [getattr(JobRow, column) == value for column, value in key.items()]
            row = session.scalar(sa.select(JobRow).where(*where))
            if row is None:
                row = JobRow(
                    id=uuid.uuid4().hex,
                    input_shapes=canonical,
                    refresh=refresh,
                    state="queued",
                    attempts=0,
                    created_at=utcnow(),
                    **key,
                )
                session.add(row)
                session.flush()
                return _to_job(row), True
            reopenable = JobRow.state.in_(_FINISHED)
            if stale_after_s is not None:
                cutoff = utcnow() - timedelta(seconds=stale_after_s)
                stale = sa.and_(JobRow.state == "running", JobRow.started_at < cutoff)
                reopenable = sa.or_(reopenable, stale)
            # Only one of several concurrent submitters wins this update; the others see
            # zero rows changed and join the job it re-opened (or the one under way).
            reopened = session.execute(
                sa.update(JobRow)
                .where(JobRow.id == row.id, reopenable)
                .values(
                    state="queued",
                    refresh=refresh,
                    error=None,
                    measurement_status=None,
                    measure_seconds=None,
                    created_at=utcnow(),
                    started_at=None,
                    finished_at=None,
                )
            )
            session.expire(row)
            return _to_job(row), bool(reopened.rowcount)  # type: ignore[attr-defined]

        return self._database.write(f"open a job for {graph_hash} on {platform}", work)

    def get(self, job_id: str) -> Job | None:
        """The job with this id, or None."""
        with self._database.transaction(f"read job {job_id}") as session:
            row = session.get(JobRow, job_id)
            return None if row is None else _to_job(row)

    @staticmethod
    def _row(session: Session, job_id: str) -> JobRow:
        row = session.get(JobRow, job_id)
        if row is None:
            raise StoreError(f"no job {job_id} in the store")
        return row

    def _update(self, job_id: str, action: str, **values: object) -> Job:
        def work(session: Session) -> Job:
            row = self._row(session, job_id)
            for column, value in values.items():
                setattr(row, column, value)
            session.flush()
            return _to_job(row)

        return self._database.write(f"{action} job {job_id}", work)

    def start(self, job_id: str, worker: str) -> Job:
        """Mark the job running on ``worker`` and count the attempt.

        A job already running is started again: a message is only re-delivered when the
        worker holding it was lost.
        """

        def work(session: Session) -> Job:
            row = self._row(session, job_id)
            row.state, row.worker = "running", worker
            row.attempts += 1
            row.started_at = utcnow()
            session.flush()
            return _to_job(row)

        return self._database.write(f"start job {job_id}", work)

    def finish(self, job_id: str, measurement_status: str, measure_seconds: float | None) -> Job:
        """Mark the job done: its measurement (of ``measurement_status``) is stored."""
        return self._update(
            job_id,
            "finish",
            state="done",
            error=None,
            measurement_status=measurement_status,
            measure_seconds=measure_seconds,
            finished_at=utcnow(),
        )

    def fail(self, job_id: str, error: str) -> Job:
        """Mark the job failed with nothing stored; a later query may open it again."""
        return self._update(job_id, "fail", state="failed", error=error, finished_at=utcnow())

    def list(self, state: JobState | None = None, limit: int = 100, offset: int = 0) -> list[Job]:
        """Jobs, newest first, optionally only those in ``state``."""
        query = sa.select(JobRow).order_by(JobRow.created_at.desc(), JobRow.id)
        if state is not None:
            query = query.where(JobRow.state == state)
        with self._database.transaction("list jobs") as session:
            return [_to_job(row) for row in session.scalars(query.limit(limit).offset(offset))]
