"""What a worker does with a job: re-read it, load the model, measure, store, finish.

:func:`execute_job` is idempotent, so a job delivered twice (a lost worker's message is
re-delivered) is safe: a finished job is left alone, a stored result is reused, and the
measurement row is unique on its cache key, so at most one is ever stored.
"""

from __future__ import annotations

import time
from typing import Any

from nnlat.errors import NnlatError
from nnlat.graph.load import load
from nnlat.measure.backends.registry import BackendFactory
from nnlat.measure.runner import measure, resolve_platform
from nnlat.measure.types import MeasureSpec
from nnlat.registry import Registry
from nnlat.store import Job, Store, StoredModel
from nnlat.store.errors import StoreError


class JobFailedError(NnlatError):
    """A job cannot be measured here, for a reason retrying will not fix."""


def stored_source(model: StoredModel) -> Any:
    """What a stored model is built from, or None.

    Its original file when it has one (a TFLite model: LiteRT and Vela run exactly that
    file, weights included), else its weight-free ONNX as a graph, else its zoo model.

    Example:
        >>> from nnlat.graph.hashing import graph_key
        >>> from nnlat.store import Store
        >>> from nnlat.testing import tiny_model
        >>> store = Store.open("sqlite://")
        >>> graph = load(tiny_model())
        >>> _ = store.upsert_model(graph)
        >>> [n.op_type for n in stored_source(store.get_model(graph_key(graph).digest)).nodes]
        ['Conv', 'Relu']
    """
    if model.source_bytes is not None:
        return load(model.source_bytes)
    if model.onnx_bytes is not None:
        return load(model.onnx_bytes)
    if model.zoo_spec is not None:
        from nnlat.zoo import get_family

        return get_family(model.zoo_spec["family"]).model(model.zoo_spec["config"])
    return None


def execute_job(
    store: Store,
    job_id: str,
    spec: MeasureSpec,
    worker: str,
    *,
    backends: Registry[BackendFactory] | None = None,
) -> Job:
    """Measure the job ``job_id`` on this host and store the result.

    Args:
        store: the shared database (holds the job and the model's ONNX or source file).
        job_id: the job to run.
        spec: the measurement protocol (the job's batch size and shapes replace its own).
        worker: this worker's name, recorded on the job.
        backends: the backend registry; by default the real backends.

    Returns:
        The job, ``done`` (a measurement of any status is stored) or ``failed``.

    Raises:
        StoreError: the database is unreachable (transient: the caller retries).

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> from nnlat.graph.hashing import graph_key
        >>> from nnlat.testing import tiny_model
        >>> store = Store.open("sqlite://")
        >>> graph = load(tiny_model())
        >>> _ = store.upsert_model(graph)
        >>> job, _ = store.jobs.open(graph_key(graph).digest, "fake-fake1.0-fp32-t1", 1,
        ...                          {"x": (1, 3, 32, 32)})
        >>> done = execute_job(store, job.id, MeasureSpec(max_time_s=0.2), "w1",
        ...                    backends=backend_registry({"fake": FakeBackend}))
        >>> done.state, done.measurement_status, done.attempts
        ('done', 'ok', 1)
    """
    job = store.jobs.get(job_id)
    if job is None:
        raise StoreError(f"no job {job_id} in the store")
    if job.state == "done":
        return job
    key = (job.graph_hash, job.platform, job.batch_size, job.input_shapes)
    if not job.refresh and (found := store.find_measurement(*key)) is not None:
        return store.jobs.finish(job.id, found.status, None)
    job = store.jobs.start(job.id, worker)
    started = time.perf_counter()
    try:
        model = store.get_model(job.graph_hash)
        if model is None:
            raise JobFailedError(f"model {job.graph_hash} is not in the store")
        _, platform, _ = resolve_platform(job.platform, backends)
        if platform is None:
            raise JobFailedError(f"this worker lacks the runtime of {job.platform}")
        shaped = spec.model_copy(
            update={"batch_size": job.batch_size, "input_shapes": job.input_shapes}
        )
        source = stored_source(model)
        if source is None:
            raise JobFailedError(
                f"model {model.graph_hash} has neither ONNX, nor its source file, nor a zoo spec"
            )
        measurement = measure(source, job.platform, shaped, backends=backends)
        if measurement.graph_hash != job.graph_hash:
            raise JobFailedError(
                f"the stored model measures as {measurement.graph_hash}, not {job.graph_hash}"
            )
        store.upsert_platform(platform)
        store.add_measurement(measurement, replace=job.refresh)
    except StoreError:
        raise
    except NnlatError as exc:
        return store.jobs.fail(job.id, str(exc))
    return store.jobs.finish(job.id, measurement.status, time.perf_counter() - started)
