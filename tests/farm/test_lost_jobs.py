"""A job whose broker message is lost is sent again (issue 29): by the server's sweep, and
by the next identical query. Real server, worker, broker and database processes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from farm_helpers import BROKERS, Farm
from kombu import Connection

from nnlat.client import Client
from nnlat.farm.routing import queue_for
from nnlat.graph import graph_key, load
from nnlat.store import Store
from nnlat.testing import tiny_model

pytestmark = [pytest.mark.services, pytest.mark.slow]  # real servers and workers: minutes


@pytest.fixture
def farm(databases, tmp_path: Path) -> Iterator[Farm]:
    farm = Farm(tmp_path, databases.url(), BROKERS["rabbitmq"])
    farm.env["NNLAT_STALE_AFTER_S"] = "2"
    yield farm
    farm.stop_all()


def _lose_queued_messages(farm: Farm) -> int:
    """Delete every message waiting in the platform's queue; return how many."""
    queue = queue_for(farm.platform, farm.env["NNLAT_QUEUE_PREFIX"])
    with Connection(farm.env["NNLAT_BROKER_URL"]) as connection:
        return int(connection.default_channel.queue_purge(queue) or 0)


def _submit_and_lose(farm: Farm, client: Client, model) -> str:
    job = client.query(model, farm.platform, wait=False)  # no worker yet: it waits
    deadline = time.monotonic() + 10
    while not _lose_queued_messages(farm):  # the broker may take a moment to hold it
        assert time.monotonic() < deadline, "the job's message never reached the queue"
        time.sleep(0.1)
    return job.id


def _rows(db_url: str, model) -> int:
    digest = graph_key(load(model)).digest
    with Store.open(db_url) as store:
        return len(store.list_measurements(status=None, graph_hash=digest))


@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_the_sweep_sends_a_lost_job_again(farm: Farm) -> None:
    farm.env["NNLAT_SWEEP_INTERVAL_S"] = "1"
    with Store.open(farm.db_url) as store:
        token = store.tokens.create("t")
    model = tiny_model(channels=21)
    with Client(farm.start_server(), token) as client, Store.open(farm.db_url) as store:
        job_id = _submit_and_lose(farm, client, model)
        farm.start_worker("w1")
        deadline = time.monotonic() + 120
        while (job := store.jobs.get(job_id)).state != "done":
            assert time.monotonic() < deadline, f"the lost job stayed {job.state}"
            time.sleep(0.2)
    assert _rows(farm.db_url, model) == 1


@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_the_next_identical_query_sends_a_lost_job_again(farm: Farm) -> None:
    farm.env["NNLAT_SWEEP_INTERVAL_S"] = "0"  # no sweep: only the query can recover it
    with Store.open(farm.db_url) as store:
        token = store.tokens.create("t")
    model = tiny_model(channels=22)
    with Client(farm.start_server(), token) as client, Store.open(farm.db_url) as store:
        job_id = _submit_and_lose(farm, client, model)
        farm.start_worker("w1")
        time.sleep(3)  # past NNLAT_STALE_AFTER_S, and nothing measures it meanwhile
        assert store.jobs.get(job_id).state == "queued"
        result = client.query(model, farm.platform, timeout_s=120)
        assert result.measurement.status == "ok"
        assert store.jobs.get(job_id).state == "done"
    assert _rows(farm.db_url, model) == 1
