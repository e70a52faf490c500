"""``nnlat.Client`` against the in-process server: the local API's calls, remotely."""

from __future__ import annotations

import pytest
from server_helpers import FAKE, Server

from nnlat.client import Client, RemoteError
from nnlat.graph import graph_key, load
from nnlat.querying.engine import QueryResult
from nnlat.store import Job
from nnlat.testing import tiny_model


def test_query_uploads_once_then_hits(server: Server) -> None:
    client = Client.of(server.http, server.token)
    first = client.query(tiny_model(), FAKE, batch_size=2, timeout_s=30)
    assert isinstance(first, QueryResult) and not first.cached
    assert first.measurement.status == "ok" and first.measurement.batch_size == 2
    again = client.query(tiny_model(), FAKE, batch_size=2)
    assert again.cached and again.measurement == first.measurement
    # by graph hash, without the model at hand
    digest = graph_key(load(tiny_model())).digest
    assert client.query(digest, FAKE, batch_size=2).cached
    assert server.store.stats().models == 2  # the uploaded graph and its batch-2 form


def test_wait_false_returns_the_job(server: Server) -> None:
    client = Client.of(server.http, server.token)
    job = client.query(tiny_model(channels=3), FAKE, wait=False)
    assert isinstance(job, Job) and job.state in ("queued", "running", "done")
    result = client.result(job, timeout_s=30)
    assert result.measurement.graph_hash == job.graph_hash
    assert client.job(job.id).state == "done"


def test_wait_false_returns_a_finished_job_when_cached(server: Server) -> None:
    client = Client.of(server.http, server.token)
    measured = client.query(tiny_model(channels=5), FAKE, timeout_s=30)
    job = client.query(tiny_model(channels=5), FAKE, wait=False)  # now a cache hit
    assert isinstance(job, Job) and job.state == "done" and job.finished
    assert job.measurement_status == "ok" and job.graph_hash == measured.measurement.graph_hash
    result = client.result(job)
    assert result.cached and result.measurement == measured.measurement
    assert client.job(job.id) == job


def test_predict_and_stats_and_errors(server: Server) -> None:
    from nnlat.predictor.api import load_predictor

    client = Client.of(server.http, server.token)
    platform = load_predictor().platforms[0]
    prediction = client.predict(tiny_model(), platform)
    assert prediction.latency_ms > 0 and prediction.platform == platform
    assert client.stats()["models"] == 1
    with pytest.raises(RemoteError, match="platform name") as caught:
        client.query(tiny_model(), "nonsense")
    assert caught.value.status_code == 400
    anonymous = Client.of(server.http)
    anonymous._http.headers.pop("Authorization", None)
    with pytest.raises(RemoteError, match="token"):
        anonymous.query(tiny_model(channels=9), FAKE)


def test_an_unreachable_server_is_a_clear_error() -> None:
    with (
        Client("http://127.0.0.1:9", timeout_s=2) as client,
        pytest.raises(RemoteError, match="cannot reach"),
    ):
        client.stats()
