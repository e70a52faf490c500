"""TFLite models through the REST service: upload, a Vela query measured from the stored
file, a prediction, the client's upload, and bad TFLite uploads that store nothing."""

from __future__ import annotations

import importlib.metadata
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from server_helpers import Server

from nnlat.client import Client
from nnlat.farm import LocalDispatcher
from nnlat.graph import graph_key, load
from nnlat.measure.runner import measure
from nnlat.measure.types import MeasureSpec
from nnlat.server import create_app
from nnlat.settings import Settings
from nnlat.store import Store
from nnlat.testing.tflite_models import handmade_tflite

pytest.importorskip("ethosu.vela")
VELA = ".".join(importlib.metadata.version("ethos-u-vela").split(".")[:2])
NPU = f"u55_128.ethos_u55_high_end_embedded.shared_sram-vela{VELA}-int8"
INT8_ADD = handmade_tflite("ADD", (1, 8, 8, 16), "int8")


@pytest.fixture
def npu_server(tmp_path: Path) -> Iterator[Server]:
    """A server whose in-process farm has the real backends (Vela among them)."""
    store = Store.open(f"sqlite:///{tmp_path / 'server.db'}")
    token = store.tokens.create("tester")
    dispatcher = LocalDispatcher(store, MeasureSpec(max_time_s=0.2))
    app = create_app(
        Settings(db_url=str(store.url), max_upload_bytes=200_000),
        store=store,
        dispatcher=dispatcher,
    )
    with TestClient(app) as http:
        yield Server(http, store, token)


def wait_done(server: Server, job_id: str) -> dict:
    for _ in range(500):
        answer = server.http.get(f"/v1/jobs/{job_id}").json()
        if answer["job"]["state"] in ("done", "failed"):
            return answer
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} did not finish")


def test_vela_query_of_an_uploaded_tflite_gives_velas_numbers(npu_server: Server) -> None:
    server = npu_server
    response = server.http.post("/v1/models", content=INT8_ADD, headers=server.auth)
    assert response.status_code == 201, response.text
    model = response.json()
    digest = graph_key(load(INT8_ADD)).digest
    assert model["graph_hash"] == digest and model["source_format"] == "tflite"
    stored = server.store.get_model(digest)
    assert stored is not None and stored.source_bytes == INT8_ADD

    body = {"graph_hash": digest, "platform": NPU}
    first = server.http.post("/v1/queries", json=body, headers=server.auth)
    assert first.status_code == 202, first.text
    done = wait_done(server, first.json()["job"]["id"])
    assert done["job"]["state"] == "done", done["job"]["error"]
    measured = done["measurement"]
    local = measure(load(INT8_ADD), NPU)
    assert measured["status"] == "ok" and measured["deterministic"] is True
    assert measured["stats"] == local.stats.model_dump(mode="json")
    assert measured["npu"] == local.npu.model_dump(mode="json")
    assert measured["peak_memory_bytes"] == local.peak_memory_bytes
    hit = server.http.post("/v1/queries", json=body)
    assert hit.status_code == 200 and hit.json()["measurement"] == measured


def test_predict_a_stored_tflite_model(npu_server: Server) -> None:
    from nnlat.predictor.api import load_predictor

    server = npu_server
    response = server.http.post("/v1/models", content=INT8_ADD, headers=server.auth)
    digest = response.json()["graph_hash"]
    platform = load_predictor().platforms[0]
    answer = server.http.post("/v1/predictions", json={"graph_hash": digest, "platform": platform})
    assert answer.status_code == 200, answer.text
    assert answer.json()["latency_ms"] > 0


@pytest.mark.parametrize(
    "payload",
    [INT8_ADD[: len(INT8_ADD) // 2], INT8_ADD[:12], handmade_tflite("CUSTOM", (1, 4))],
    ids=["truncated", "header-only", "custom-operator"],
)
def test_invalid_tflite_upload_is_one_line_4xx_and_stores_nothing(
    npu_server: Server, payload: bytes
) -> None:
    server = npu_server
    response = server.http.post("/v1/models", content=payload, headers=server.auth)
    assert response.status_code == 400, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in detail
    stats = server.store.stats()
    assert (stats.models, stats.measurements) == (0, 0)


def test_tflite_upload_needs_a_token(npu_server: Server) -> None:
    response = npu_server.http.post("/v1/models", content=INT8_ADD)
    assert response.status_code == 401
    assert npu_server.store.stats().models == 0


def test_client_uploads_a_tflite_file_and_queries_it(npu_server: Server, tmp_path: Path) -> None:
    path = tmp_path / "add8.tflite"
    path.write_bytes(INT8_ADD)
    client = Client.of(npu_server.http, npu_server.token)
    result = client.query(path, NPU, timeout_s=60)
    assert result.measurement.status == "ok" and result.measurement.npu is not None
    stored = npu_server.store.get_model(result.measurement.graph_hash)
    assert stored is not None and stored.source_bytes == INT8_ADD
    assert client.upload(path) == result.measurement.graph_hash
