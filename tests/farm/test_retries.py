"""The Celery task retries a job while the database is away, then gives up cleanly.

The task runs eagerly (in this process, no broker) so the retry loop itself is tested;
the database outage is simulated by an ``execute_job`` that fails a given number of
times before doing the real work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nnlat.farm import celery_app
from nnlat.graph import graph_key, load
from nnlat.measure.types import MeasureSpec
from nnlat.settings import Settings
from nnlat.store import Store
from nnlat.store.errors import StoreUnavailableError
from nnlat.testing import tiny_model


def run_task(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, failures: int):
    db_url = f"sqlite:///{tmp_path / 'nnlat.db'}"
    store = Store.open(db_url)
    graph = load(tiny_model())
    store.upsert_model(graph, keep_onnx=True)
    shapes = {s.name: tuple(s.shape) for s in graph.inputs}
    job, _ = store.jobs.open(graph_key(graph).digest, "fake-fake1.0-fp32-t1", 1, shapes)
    calls: list[int] = []

    def flaky(store: Store, job_id: str, spec: MeasureSpec, worker: str):
        calls.append(1)
        if len(calls) <= failures:
            raise StoreUnavailableError("lost the database")
        return store.jobs.finish(job_id, "ok", 0.1)

    monkeypatch.setattr(celery_app, "execute_job", flaky)
    celery_app._store.cache_clear()
    settings = Settings(db_url=db_url, broker_url="memory://", job_retries=2, retry_backoff_s=0.01)
    app = celery_app.make_celery(settings)
    app.conf.task_always_eager = True
    result = app.tasks[celery_app.TASK_NAME].apply(args=[job.id])
    celery_app._store.cache_clear()
    return store.jobs.get(job.id), len(calls), result


def test_a_transient_failure_is_retried(monkeypatch, tmp_path) -> None:
    job, calls, result = run_task(monkeypatch, tmp_path, failures=2)
    assert calls == 3 and result.state == "SUCCESS" and job.state == "done"


def test_retries_used_up_fail_the_job(monkeypatch, tmp_path) -> None:
    job, calls, result = run_task(monkeypatch, tmp_path, failures=10)
    assert calls == 3 and result.state == "FAILURE"
    assert job.state == "failed" and "gave up after 2" in job.error
