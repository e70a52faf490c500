"""Jobs and tokens in the store, on SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from nnlat.store import Store
from nnlat.store.errors import StoreError

KEY = ("0123456789abcdef", "cpu-ort1.0-fp32-t1", 2, {"x": (2, 3, 8, 8)})


def test_a_key_has_one_job_that_identical_requests_join(store: Store) -> None:
    job, created = store.jobs.open(*KEY)
    again, created_again = store.jobs.open(*KEY)
    assert created and not created_again
    assert again.id == job.id and again.state == "queued" and again.input_shapes == KEY[3]
    other, other_created = store.jobs.open(KEY[0], KEY[1], 4, {"x": (4, 3, 8, 8)})
    assert other_created and other.id != job.id


def test_job_lifecycle_and_reopening(store: Store) -> None:
    job, _ = store.jobs.open(*KEY)
    running = store.jobs.start(job.id, "w1")
    assert (running.state, running.attempts, running.worker) == ("running", 1, "w1")
    # a re-delivered message (lost worker) starts it again and counts the attempt
    assert store.jobs.start(job.id, "w2").attempts == 2
    assert store.jobs.open(*KEY)[1] is False  # running: joined, not re-dispatched
    done = store.jobs.finish(job.id, "ok", 1.5)
    assert (done.state, done.measurement_status, done.measure_seconds) == ("done", "ok", 1.5)
    assert done.finished and done.finished_at is not None
    reopened, created = store.jobs.open(*KEY, refresh=True)
    assert created and reopened.id == job.id
    assert (reopened.state, reopened.refresh, reopened.measurement_status) == ("queued", True, None)
    failed = store.jobs.fail(job.id, "the measurement ran past 1 s")
    assert failed.state == "failed" and failed.error == "the measurement ran past 1 s"
    assert [j.id for j in store.jobs.list(state="failed")] == [job.id]
    assert store.jobs.get("f" * 32) is None
    with pytest.raises(StoreError, match="no job"):
        store.jobs.finish("f" * 32, "ok", None)


def test_concurrent_opens_from_many_connections_create_one_job(databases) -> None:
    url = databases.url()
    stores = [Store.open(url) for _ in range(8)]
    try:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda s: s.jobs.open(*KEY), stores))
        assert sum(created for _, created in answers) == 1
        assert len({job.id for job, _ in answers}) == 1
        # the same race on re-opening a finished job: exactly one submitter wins
        stores[0].jobs.fail(answers[0][0].id, "broker away")
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda s: s.jobs.open(*KEY), stores))
        assert sum(created for _, created in answers) == 1
    finally:
        for s in stores:
            s.close()


def test_tokens_are_stored_hashed_and_checked(store: Store) -> None:
    token = store.tokens.create("alice")
    assert token.startswith("nnlat_") and len(token) > 40
    assert store.tokens.verify(token) == "alice"
    assert store.tokens.verify(token + "x") is None
    assert store.tokens.verify("not-a-token") is None
    with pytest.raises(StoreError, match="exists"):
        store.tokens.create("alice")
    with pytest.raises(StoreError, match="not valid"):
        store.tokens.create("bad name; drop table")
    assert store.tokens.names() == ["alice"]
    with store.engine.connect() as connection:
        stored = connection.execute(sa.text("SELECT digest FROM tokens")).scalars().all()
    assert token not in stored
    assert store.tokens.revoke("alice") and not store.tokens.revoke("alice")
    assert store.tokens.verify(token) is None


def test_a_job_running_too_long_is_abandoned_and_reopened(store: Store) -> None:
    job, _ = store.jobs.open(*KEY)
    store.jobs.start(job.id, "w1")
    assert store.jobs.open(*KEY, stale_after_s=3600)[1] is False
    reopened, created = store.jobs.open(*KEY, stale_after_s=0)
    assert created and reopened.state == "queued" and reopened.attempts == 1
