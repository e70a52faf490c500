"""The service with its device farm, for real: uvicorn, Celery workers, a broker, a database.

Every test starts ``nnlat serve`` and ``nnlat worker`` processes measuring on this host's
onnxruntime platform, and talks to them only through ``nnlat.Client`` / HTTP.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from farm_helpers import BROKERS, Farm

from nnlat.client import Client, RemoteError
from nnlat.graph import graph_key, load
from nnlat.store import Store
from nnlat.testing import tiny_model

pytestmark = [pytest.mark.services, pytest.mark.slow]  # real servers and workers: minutes

LIGHT_RESNET50 = (
    Path(__import__("onnx").__file__).parent / "backend/test/data/light/light_resnet50.onnx"
)


def token_for(db_url: str) -> str:
    with Store.open(db_url) as store:
        return store.tokens.create(f"t{time.monotonic_ns()}")


def rows_of(db_url: str, model) -> int:
    digest = graph_key(load(model)).digest
    with Store.open(db_url) as store:
        return len(store.list_measurements(status=None, graph_hash=digest))


@pytest.fixture
def farm_factory(tmp_path: Path) -> Iterator:
    """Build farms on given database and broker URLs; everything is stopped afterwards."""
    farms: list[Farm] = []

    def make(db_url: str, broker: str = "rabbitmq") -> Farm:
        farm = Farm(tmp_path, db_url, BROKERS[broker])
        farms.append(farm)
        return farm

    yield make
    for farm in farms:
        farm.stop_all()
        print(farm.report())


def test_a_miss_is_measured_by_a_worker_then_cached(databases, farm_factory) -> None:
    db_url = databases.url()
    farm = farm_factory(db_url)
    with Client(farm.start_server(), token_for(db_url)) as client:
        farm.start_worker("w1")
        first = client.query(tiny_model(), farm.platform, timeout_s=120)
        assert not first.cached and first.measurement.status == "ok"
        assert first.measurement.stats.median_ms > 0
        again = client.query(tiny_model(), farm.platform)
        assert again.cached and again.measurement == first.measurement
        # a permanent failure (an operator no runtime has) is stored and returned
        custom = tiny_model(channels=3)
        custom.graph.node[1].domain = "com.example"
        custom.opset_import.add(domain="com.example", version=1)
        failed = client.query(custom, farm.platform, timeout_s=120)
        assert failed.measurement.status == "failed" and failed.measurement.error
        assert client.query(custom, farm.platform).cached  # not retried
        live = {p["name"]: p["workers"] for p in client.platforms()}
        assert live[farm.platform] == 1
    assert rows_of(db_url, tiny_model()) == 1


@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_redis_as_the_broker(databases, farm_factory) -> None:
    db_url = databases.url()
    farm = farm_factory(db_url, broker="redis")
    with Client(farm.start_server(), token_for(db_url)) as client:
        farm.start_worker("w1")
        result = client.query(tiny_model(channels=5), farm.platform, timeout_s=120)
        assert result.measurement.status == "ok"


@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_a_killed_worker_job_is_finished_by_another_and_stored_once(
    databases, farm_factory
) -> None:
    db_url = databases.url()
    farm = farm_factory(db_url)
    with Client(farm.start_server(), token_for(db_url)) as client, Store.open(db_url) as store:
        farm.start_worker("w1")
        farm.start_worker("w2")
        job = client.query(LIGHT_RESNET50, farm.platform, wait=False)
        deadline = time.monotonic() + 60
        while (current := store.jobs.get(job.id)).state != "running":
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.02)
        time.sleep(0.3)  # inside the measurement
        assert store.jobs.get(job.id).state == "running"
        farm.kill(current.worker.split("@")[0])
        result = client.result(job, timeout_s=180)
        assert result.measurement.status == "ok"
        finished = store.jobs.get(job.id)
        assert finished.attempts == 2 and finished.worker != current.worker
    assert rows_of(db_url, LIGHT_RESNET50) == 1


@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_identical_queries_from_many_clients_measure_once(databases, farm_factory) -> None:
    db_url = databases.url()
    farm = farm_factory(db_url)
    url, token = farm.start_server(), token_for(db_url)
    farm.start_worker("w1")
    model = tiny_model(channels=7)

    def ask(_: int):
        # 16 uploads at once are 16 capped loading children on a 2-core host: each request
        # may take longer than the default 60 s, and a stuck upload meets its own 120 s
        # cap (NNLAT_UPLOAD_TIME_S) first, which names itself
        with Client(url, token, timeout_s=240) as client:
            return client.query(model, farm.platform, timeout_s=240)

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(ask, range(16)))
    assert len({r.measurement.model_dump_json() for r in results}) == 1
    assert rows_of(db_url, model) == 1
    with Store.open(db_url) as store:
        [job] = store.jobs.list()
        assert job.attempts == 1


@pytest.mark.skipif(shutil.which("rabbitmqctl") is None, reason="needs rabbitmqctl")
@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_queued_jobs_survive_a_broker_restart(databases, farm_factory) -> None:
    db_url = databases.url()
    farm = farm_factory(db_url)
    models = [tiny_model(channels=c) for c in (11, 12, 13)]
    with Client(farm.start_server(), token_for(db_url)) as client:
        jobs = [client.query(m, farm.platform, wait=False) for m in models]  # no worker yet
        try:
            subprocess.run(["rabbitmqctl", "stop_app"], check=True, capture_output=True)
        finally:
            subprocess.run(["rabbitmqctl", "start_app"], check=True, capture_output=True)
            subprocess.run(["rabbitmqctl", "await_startup"], check=True, capture_output=True)
        farm.start_worker("w1")
        results = [client.result(job, timeout_s=120) for job in jobs]
    assert [r.measurement.status for r in results] == ["ok"] * 3
    assert [rows_of(db_url, m) for m in models] == [1, 1, 1]


@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_a_measurement_past_the_job_timeout_fails_the_job_and_stores_nothing(
    databases, farm_factory
) -> None:
    db_url = databases.url()
    farm = farm_factory(db_url)
    farm.env["NNLAT_JOB_TIMEOUT_S"] = "0.5"  # ResNet-50's measurement takes seconds
    with Client(farm.start_server(), token_for(db_url)) as client:
        farm.start_worker("w1")
        job = client.query(LIGHT_RESNET50, farm.platform, wait=False)
        with pytest.raises(RemoteError, match=r"ran past 0\.5 s"):
            client.result(job, timeout_s=120)
    assert rows_of(db_url, LIGHT_RESNET50) == 0
