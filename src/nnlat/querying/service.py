"""Cache-or-enqueue, for the server: a query is answered from the database or becomes a job.

The server keeps models by graph hash. A query names a stored model, a platform, a batch
size and input shapes; the graph measured is the stored one with those shapes applied,
whose own hash is the cache key's. That hash is remembered per (model, batch, shapes), so
a repeated query costs one indexed lookup and never loads the ONNX again.

A miss opens the key's job (:meth:`~nnlat.store.jobs.Jobs.open`): the first submitter
creates and dispatches it, every identical query after that — in this process or any
other — joins it, so a model is measured once however many clients ask at once.

A job whose broker message or worker was lost would wait forever: a job queued or
running for longer than ``stale_after_s`` is sent again, by the next identical query and
by :meth:`QueryService.resend_stale`, which the server calls periodically. Sending a job
twice is safe (:func:`~nnlat.farm.execute.execute_job` is idempotent).

Uploads are untrusted: :meth:`QueryService.add_model` parses and normalises them in a
child capped in memory and time, forked from a fork server rather than from this
threaded process (:func:`nnlat.capped.call_capped`), and nothing is
written to the database for a caller that may not write.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, ConfigDict

from nnlat.capped import CapExceededError, call_capped
from nnlat.errors import NnlatError
from nnlat.farm.dispatch import Dispatcher
from nnlat.farm.execute import stored_source
from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.load import load
from nnlat.limits import DEFAULT_LIMITS, Limits, exceeded
from nnlat.measure.backends.base import graph_for
from nnlat.measure.types import MeasureSpec
from nnlat.platform import parse_platform_name
from nnlat.querying.engine import QueryResult
from nnlat.querying.storable import check_storable
from nnlat.store import Job, Store, StoredModel

Shapes = dict[str, tuple[int, ...]]
# (graph hash, batch size, sorted shape overrides)
_IdentityKey = tuple[str, int, tuple[tuple[str, tuple[int, ...]], ...]]
MAX_REMEMBERED = 65536
LOOKUP_FLUSH_S = 1.0
SWEEP_BATCH = 1000


class UnknownModelError(NnlatError):
    """No model with this graph hash is stored on the server."""


class UnknownJobError(NnlatError):
    """No job with this id exists."""


class MeasurementNotAllowedError(NnlatError):
    """The query needs a measurement and the caller may only read."""


class Pending(BaseModel):
    """A query being measured: poll its job."""

    model_config = ConfigDict(frozen=True)

    job: Job


class QueryService:
    """Answers queries from the store, or hands them to the farm.

    Args:
        store: the shared database.
        dispatcher: where jobs go (Celery queues, or this process).
        max_upload_bytes: the largest model file :meth:`add_model` accepts.
        stale_after_s: a job queued or running for longer than this is taken as lost
            (its message, or its worker and the broker's re-delivery): the next identical
            query and :meth:`resend_stale` send it again. None never gives up on a job.
        limits: the resource limits on uploaded models and query shapes.
        upload_memory_bytes: memory the child that loads an upload may use (None: load
            in this process, uncapped: for trusted callers only).
        upload_time_s: time that child may take.

    Example:
        >>> from nnlat.farm import LocalDispatcher
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> import tempfile
        >>> from nnlat.testing import tiny_model
        >>> store = Store.open(f"sqlite:///{tempfile.mkdtemp()}/nnlat.db")  # shared by threads
        >>> fake = backend_registry({"fake": FakeBackend})
        >>> service = QueryService(store, LocalDispatcher(store, MeasureSpec(), backends=fake))
        >>> model = service.add_model(tiny_model().SerializeToString())
        >>> pending = service.query(model.graph_hash, "fake-fake1.0-fp32-t1")
        >>> pending.job.state in ("queued", "running", "done")
        True
        >>> service.dispatcher.close()  # waits for the measurement
        >>> service.query(model.graph_hash, "fake-fake1.0-fp32-t1").cached
        True
    """

    def __init__(
        self,
        store: Store,
        dispatcher: Dispatcher,
        *,
        max_upload_bytes: int = 256 << 20,
        stale_after_s: float | None = None,
        limits: Limits = DEFAULT_LIMITS,
        upload_memory_bytes: int | None = None,
        upload_time_s: float = 120.0,
    ) -> None:
        self.store = store
        self.dispatcher = dispatcher
        self.max_upload_bytes = max_upload_bytes
        self.stale_after_s = stale_after_s
        self.limits = limits
        self.upload_memory_bytes = upload_memory_bytes
        self.upload_time_s = upload_time_s
        self._guard = threading.Lock()
        self._resent: dict[str, float] = {}  # job id → when this process last re-sent it
        self._identities: dict[_IdentityKey, tuple[str, Shapes]] = {}
        self._lookups = [0, 0]  # hits, misses not yet written to the store
        self._flushed_at = time.monotonic()

    def _count_lookup(self, hit: bool) -> None:
        # A write per lookup would double the cost of a cache hit (a commit is the
        # slowest part of it): counts are batched and written at most once a second.
        with self._guard:
            self._lookups[0 if hit else 1] += 1
            due = time.monotonic() - self._flushed_at >= LOOKUP_FLUSH_S
        if due:
            self.flush_lookups()

    def flush_lookups(self) -> None:
        """Write the lookups counted since the last flush to the store's counters."""
        with self._guard:
            (hits, misses), self._lookups = self._lookups, [0, 0]
            self._flushed_at = time.monotonic()
        self.store.record_lookups(hits, misses)

    def add_model(self, data: bytes, family: str | None = None) -> StoredModel:
        """Validate an uploaded ONNX or TFLite model and store it; return it.

        The format is told from the bytes (TFLite by its file identifier). An ONNX model
        is kept weight-free; a TFLite model keeps its original file as well, which LiteRT
        and Vela run. Nothing is stored unless the whole file loads.

        Raises:
            ModelTooLargeError: over ``max_upload_bytes``.
            ModelLoadError: not a loadable ONNX or TFLite model.
            InvalidModelError: not a valid model.
            LimitExceededError: over ``limits``, or loading it takes more memory or time
                than the upload caps allow.
            ExternalDataError: it refers to external files (an upload must be one file).
        """
        parse = functools.partial(
            load, data, max_model_bytes=self.max_upload_bytes, limits=self.limits
        )
        if self.upload_memory_bytes is None:
            graph = parse()
        else:
            # Forked from the fork server, not from this threaded process: a child forked
            # here could inherit a lock another thread holds and hang until its time cap.
            try:
                graph = call_capped(
                    parse,
                    max_bytes=self.upload_memory_bytes,
                    max_seconds=self.upload_time_s,
                    isolated=True,
                )
            except CapExceededError as exc:
                if exc.cap == "memory":
                    raise exceeded(
                        "upload_memory_bytes",
                        self.upload_memory_bytes,
                        "loading this model needs more memory",
                    ) from None
                raise exceeded(
                    "upload_time_s", self.upload_time_s, "loading this model takes longer"
                ) from None
        check_storable(graph)
        self.store.upsert_model(graph, family=family, keep_onnx=True)
        stored = self.store.get_model(graph_key(graph).digest)
        assert stored is not None  # just written
        return stored

    def graph(
        self,
        graph_hash: str,
        batch_size: int = 1,
        input_shapes: Mapping[str, Sequence[int]] | None = None,
    ) -> Graph:
        """The stored model ``graph_hash`` with a batch size and input shapes applied.

        Raises:
            UnknownModelError: no such model is stored.
            InvalidInputShapeError: the shapes do not fit the model.
        """
        model = self.store.get_model(graph_hash)
        if model is None:
            raise UnknownModelError(
                f"no model {graph_hash} on this server; upload it first (POST /v1/models)"
            )
        source = stored_source(model)
        if source is None:
            raise UnknownModelError(
                f"model {graph_hash} is stored without its ONNX or source file; upload it again"
            )
        return graph_for(source, _spec(batch_size, input_shapes))

    def _store_shaped(
        self,
        graph_hash: str,
        digest: str,
        batch_size: int,
        input_shapes: Mapping[str, Sequence[int]] | None,
    ) -> None:
        """Store the model under the query's shapes (hash ``digest``): the worker loads
        what it measures by that hash. Only for a caller who may write."""
        if digest == graph_hash or self.store.get_model(digest) is not None:
            return
        graph = self.graph(graph_hash, batch_size, input_shapes)
        check_storable(graph)
        stored = self.store.get_model(graph_hash)
        family = stored.family if stored else None
        self.store.upsert_model(graph, family=family, keep_onnx=True)

    def _identify(
        self, graph_hash: str, batch_size: int, input_shapes: Mapping[str, Sequence[int]] | None
    ) -> tuple[str, Shapes]:
        """(cache-key hash, input shapes) of a stored model under these shapes; memoised."""
        overrides = tuple(
            sorted((k, tuple(int(d) for d in v)) for k, v in (input_shapes or {}).items())
        )
        key = (graph_hash, batch_size, overrides)
        if (known := self._identities.get(key)) is not None:
            return known
        graph = self.graph(graph_hash, batch_size, dict(overrides))
        digest = graph_key(graph).digest
        shapes = {s.name: tuple(int(d) for d in s.shape or ()) for s in graph.inputs}
        with self._guard:
            if len(self._identities) >= MAX_REMEMBERED:
                self._identities.pop(next(iter(self._identities)))
            self._identities[key] = (digest, shapes)
        return digest, shapes

    def query(
        self,
        graph_hash: str,
        platform: str,
        batch_size: int = 1,
        input_shapes: Mapping[str, Sequence[int]] | None = None,
        *,
        refresh: bool = False,
        may_measure: bool = True,
    ) -> QueryResult | Pending:
        """The stored result for this query, or the job that will measure it.

        Args:
            graph_hash: a stored model.
            platform: the platform's name.
            batch_size: dimension 0 of every input.
            input_shapes: input name → shape overrides.
            refresh: measure again and replace the stored result.
            may_measure: False for a read-only caller: a miss raises instead of
                opening a job.

        Raises:
            UnknownPlatformError: the platform name is malformed.
            UnknownModelError: no model ``graph_hash`` is stored.
            MeasurementNotAllowedError: a miss, and ``may_measure`` is False.
            InvalidInputShapeError: the shapes do not fit the model.
            FarmUnavailableError: a job was needed and the broker did not take it.
        """
        parse_platform_name(platform)
        digest, shapes = self._identify(graph_hash, batch_size, input_shapes)
        if not refresh:
            found = self.store.find_measurement(digest, platform, batch_size, shapes)
            self._count_lookup(hit=found is not None)
            if found is not None:
                return QueryResult(cached=True, measurement=found)
        if not may_measure:
            raise MeasurementNotAllowedError(
                f"{graph_hash} on {platform} is not measured yet, and measuring needs an API "
                "token: send `Authorization: Bearer <token>`"
            )
        self._store_shaped(graph_hash, digest, batch_size, input_shapes)
        job, created = self.store.jobs.open(
            digest, platform, batch_size, shapes, refresh=refresh, stale_after_s=self.stale_after_s
        )
        if created or self._lost(job):
            self._send(job)
        return Pending(job=job)

    def _send(self, job: Job) -> None:
        with self._guard:
            self._resent[job.id] = time.monotonic()
            if len(self._resent) > MAX_REMEMBERED:
                self._resent.pop(next(iter(self._resent)))
        try:
            self.dispatcher.send(job)
        except NnlatError as exc:
            # Not queued: fail the job, so the next identical query re-opens it
            # instead of joining a job nobody will ever run.
            self.store.jobs.fail(job.id, str(exc))
            raise

    def _lost(self, job: Job) -> bool:
        """Has ``job`` waited in the queue past ``stale_after_s`` (its message lost)?

        Not if this process sent it less than ``stale_after_s`` ago: concurrent
        identical queries re-send a lost job once, not once each.
        """
        if self.stale_after_s is None or job.state != "queued":
            return False
        if _age_s(job.created_at) < self.stale_after_s:
            return False
        with self._guard:
            sent = self._resent.get(job.id)
        return sent is None or time.monotonic() - sent >= self.stale_after_s

    def resend_stale(self) -> int:
        """Send again every job queued or running for longer than ``stale_after_s``.

        A running job that old is re-opened first (its worker is gone; see
        :meth:`~nnlat.store.jobs.Jobs.open`). Called periodically by the server.

        Returns:
            How many jobs were sent again.
        """
        if self.stale_after_s is None:
            return 0
        sent = 0
        for job in self.store.jobs.list("queued", limit=SWEEP_BATCH):
            if self._lost(job):
                self._send(job)
                sent += 1
        cutoff = datetime.now(UTC) - timedelta(seconds=self.stale_after_s)
        for job in self.store.jobs.list("running", limit=SWEEP_BATCH):
            if job.started_at is None or _as_utc(job.started_at) >= cutoff:
                continue
            reopened, created = self.store.jobs.open(
                job.graph_hash,
                job.platform,
                job.batch_size,
                job.input_shapes,
                refresh=job.refresh,
                protocol_version=job.protocol_version,
                stale_after_s=self.stale_after_s,
            )
            if created:
                self._send(reopened)
                sent += 1
        return sent

    def job(self, job_id: str) -> tuple[Job, QueryResult | None]:
        """A job and, once it is ``done``, its stored result.

        Raises:
            UnknownJobError: no such job.
        """
        job = self.store.jobs.get(job_id)
        if job is None:
            raise UnknownJobError(f"no job {job_id} on this server")
        result = None
        if job.state == "done":
            found = self.store.find_measurement(
                job.graph_hash, job.platform, job.batch_size, job.input_shapes
            )
            if found is not None:
                result = QueryResult(cached=False, measurement=found)
        return job, result


def _as_utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _age_s(moment: datetime) -> float:
    return (datetime.now(UTC) - _as_utc(moment)).total_seconds()


def _spec(batch_size: int, input_shapes: Mapping[str, Sequence[int]] | None) -> MeasureSpec:
    return MeasureSpec(
        batch_size=batch_size,
        input_shapes={k: tuple(int(d) for d in v) for k, v in (input_shapes or {}).items()},
    )
