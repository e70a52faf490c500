"""What a worker does with a job, on the fake backend: measure, store, finish, idempotently."""

from __future__ import annotations

import onnx
import pytest

from nnlat.farm import LocalDispatcher, execute_job
from nnlat.graph import graph_key, load
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.store import Store
from nnlat.testing import tiny_model

FAKE = "fake-fake1.0-fp32-t1"
SPEC = MeasureSpec(max_time_s=0.2)


@pytest.fixture
def fake():
    return backend_registry({"fake": FakeBackend})


def stored_job(store: Store, model: onnx.ModelProto, platform: str = FAKE):
    graph = load(model)
    store.upsert_model(graph, keep_onnx=True)
    shapes = {s.name: tuple(s.shape) for s in graph.inputs}
    return store.jobs.open(graph_key(graph).digest, platform, 1, shapes)[0]


def test_a_job_is_measured_once_and_rerunning_it_changes_nothing(fake) -> None:
    store = Store.open("sqlite://")
    job = stored_job(store, tiny_model())
    done = execute_job(store, job.id, SPEC, "w1", backends=fake)
    assert (done.state, done.measurement_status, done.attempts, done.worker) == (
        "done",
        "ok",
        1,
        "w1",
    )
    assert done.measure_seconds is not None and done.measure_seconds > 0
    assert execute_job(store, job.id, SPEC, "w2", backends=fake) == done
    assert len(store.list_measurements(status=None)) == 1


def test_a_redelivered_running_job_is_finished_by_the_next_worker(fake) -> None:
    store = Store.open("sqlite://")
    job = stored_job(store, tiny_model())
    store.jobs.start(job.id, "lost-worker")  # it died before storing anything
    done = execute_job(store, job.id, SPEC, "w2", backends=fake)
    assert (done.state, done.attempts, done.worker) == ("done", 2, "w2")
    assert len(store.list_measurements(status=None)) == 1


def test_an_unsupported_operator_is_a_stored_failure_not_a_retry(fake) -> None:
    store = Store.open("sqlite://")
    model = tiny_model()
    model.graph.node[1].domain = "com.example"  # a custom op the runtime cannot convert
    model.opset_import.add(domain="com.example", version=1)
    job = stored_job(store, model)
    done = execute_job(store, job.id, SPEC, "w1", backends=fake)
    assert (done.state, done.measurement_status) == ("done", "failed")
    [stored] = store.list_measurements(status="failed")
    assert stored.error


def test_a_platform_of_another_host_fails_the_job_with_a_reason(fake) -> None:
    store = Store.open("sqlite://")
    job = stored_job(store, tiny_model(), platform="otherhost-fake1.0-fp32-t1")
    failed = execute_job(store, job.id, SPEC, "w1", backends=fake)
    assert failed.state == "failed" and "otherhost" in failed.error
    assert store.list_measurements(status=None) == []


def test_local_dispatcher_runs_jobs_on_a_thread_per_platform(fake, tmp_path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'nnlat.db'}")  # a file: threads share it
    jobs = [stored_job(store, tiny_model(channels=c)) for c in (2, 3, 4)]
    local = LocalDispatcher(store, SPEC, backends=fake)
    for job in jobs:
        local.send(job)
    local.close()
    assert [store.jobs.get(j.id).state for j in jobs] == ["done"] * 3
