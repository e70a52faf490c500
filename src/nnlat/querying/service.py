"""Cache-or-enqueue, for the server: a query is answered from the database or becomes a job.

The server keeps models by graph hash. A query names a stored model, a platform, a batch
size and input shapes; the graph measured is the stored one with those shapes applied,
whose own hash is the cache key's. That hash is remembered per (model, batch, shapes), so
a repeated query costs one indexed lookup and never loads the ONNX again.

A miss opens the key's job (:meth:`~nnlat.store.jobs.Jobs.open`): the first submitter
creates and dispatches it, every identical query after that — in this process or any
other — joins it, so a model is measured once however many clients ask at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from nnlat.errors import NnlatError
from nnlat.farm.dispatch import Dispatcher
from nnlat.farm.execute import stored_source
from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.load import load
from nnlat.measure.backends.base import graph_for
from nnlat.measure.types import MeasureSpec
from nnlat.platform import parse_platform_name
from nnlat.querying.engine import QueryResult
from nnlat.store import Job, Store, StoredModel

Shapes = dict[str, tuple[int, ...]]
# (graph hash, batch size, sorted shape overrides)
_IdentityKey = tuple[str, int, tuple[tuple[str, tuple[int, ...]], ...]]
MAX_REMEMBERED = 65536
LOOKUP_FLUSH_S = 1.0


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
        stale_after_s: a job running longer than this is taken as abandoned (its worker
            and the broker's re-delivery both lost): the next identical query re-opens it.

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
    ) -> None:
        self.store = store
        self.dispatcher = dispatcher
        self.max_upload_bytes = max_upload_bytes
        self.stale_after_s = stale_after_s
        self._guard = threading.Lock()
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
            ExternalDataError: it refers to external files (an upload must be one file).
        """
        graph = load(data, max_model_bytes=self.max_upload_bytes)
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
        if digest != graph_hash:  # the worker loads what it measures by this hash
            stored = self.store.get_model(graph_hash)
            family = stored.family if stored else None
            self.store.upsert_model(graph, family=family, keep_onnx=True)
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
        job, created = self.store.jobs.open(
            digest, platform, batch_size, shapes, refresh=refresh, stale_after_s=self.stale_after_s
        )
        if created:
            try:
                self.dispatcher.send(job)
            except NnlatError as exc:
                # Not queued: fail the job, so the next identical query re-opens it
                # instead of joining a job nobody will ever run.
                self.store.jobs.fail(job.id, str(exc))
                raise
        return Pending(job=job)

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


def _spec(batch_size: int, input_shapes: Mapping[str, Sequence[int]] | None) -> MeasureSpec:
    return MeasureSpec(
        batch_size=batch_size,
        input_shapes={k: tuple(int(d) for d in v) for k, v in (input_shapes or {}).items()},
    )
