"""Lost jobs are sent again: by the next identical query and by the sweep (issue 29)."""

from __future__ import annotations

import time
from pathlib import Path

from nnlat.farm import LocalDispatcher
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.querying.service import Pending, QueryService
from nnlat.store import Job, Store
from nnlat.testing import tiny_model

FAKE = "fake-fake1.0-fp32-t1"


class LosingDispatcher(LocalDispatcher):
    """Measures jobs in this process, but loses the first ``lose`` messages."""

    def __init__(self, store: Store, lose: int) -> None:
        super().__init__(
            store, MeasureSpec(max_time_s=0.1), backends=backend_registry({"fake": FakeBackend})
        )
        self.lose = lose
        self.sent: list[str] = []

    def send(self, job: Job) -> None:
        self.sent.append(job.id)
        if self.lose > 0:
            self.lose -= 1
            return
        super().send(job)


def _service(tmp_path: Path, lose: int, stale_after_s: float | None) -> QueryService:
    store = Store.open(f"sqlite:///{tmp_path / 'nnlat.db'}")
    return QueryService(store, LosingDispatcher(store, lose), stale_after_s=stale_after_s)


def _wait_done(service: QueryService, job_id: str) -> Job:
    deadline = time.monotonic() + 60
    while (job := service.store.jobs.get(job_id)).state != "done":
        assert time.monotonic() < deadline, f"job stayed {job.state}"
        time.sleep(0.05)
    return job


def test_the_next_identical_query_resends_a_lost_job(tmp_path: Path) -> None:
    service = _service(tmp_path, lose=1, stale_after_s=0.3)
    digest = service.add_model(tiny_model().SerializeToString()).graph_hash
    first = service.query(digest, FAKE)
    assert isinstance(first, Pending)
    joined = service.query(digest, FAKE)  # not stale yet: joins, sends nothing
    assert joined.job.id == first.job.id and service.dispatcher.sent == [first.job.id]
    time.sleep(0.4)
    service.query(digest, FAKE)
    service.query(digest, FAKE)  # sent again once, not once per query
    assert service.dispatcher.sent == [first.job.id] * 2
    assert _wait_done(service, first.job.id).attempts == 1
    service.dispatcher.close()


def test_the_sweep_resends_a_lost_job(tmp_path: Path) -> None:
    service = _service(tmp_path, lose=1, stale_after_s=0.3)
    digest = service.add_model(tiny_model().SerializeToString()).graph_hash
    job = service.query(digest, FAKE).job
    assert service.resend_stale() == 0  # too young
    time.sleep(0.4)
    assert service.resend_stale() == 1
    _wait_done(service, job.id)
    assert service.resend_stale() == 0
    service.dispatcher.close()


def test_without_a_stale_time_a_lost_job_waits(tmp_path: Path) -> None:
    service = _service(tmp_path, lose=1, stale_after_s=None)
    digest = service.add_model(tiny_model().SerializeToString()).graph_hash
    job = service.query(digest, FAKE).job
    time.sleep(0.1)
    service.query(digest, FAKE)
    assert service.resend_stale() == 0
    assert service.store.jobs.get(job.id).state == "queued"
    service.dispatcher.close()
