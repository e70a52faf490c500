"""The REST API in-process: uploads, queries, jobs, listings, tokens, bad input."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import onnx
import pytest
from server_helpers import FAKE, Server, make_server

from nnlat.graph import graph_key, load
from nnlat.testing import tiny_model


def upload(server: Server, model: onnx.ModelProto | bytes, **params: str) -> dict:
    data = model if isinstance(model, bytes) else model.SerializeToString()
    response = server.http.post("/v1/models", content=data, headers=server.auth, params=params)
    assert response.status_code == 201, response.text
    return response.json()


def wait_done(server: Server, job_id: str) -> dict:
    for _ in range(200):
        answer = server.http.get(f"/v1/jobs/{job_id}").json()
        if answer["job"]["state"] in ("done", "failed"):
            return answer
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} did not finish")


def test_health_and_openapi(server: Server) -> None:
    health = server.http.get("/v1/health").json()
    assert health == {**health, "status": "ok", "database": "ok", "farm": "local"}
    paths = server.http.get("/openapi.json").json()["paths"]
    assert {"/v1/queries", "/v1/jobs/{job_id}", "/v1/models", "/v1/predictions"} <= set(paths)


def test_upload_then_miss_then_hit(server: Server) -> None:
    model = upload(server, tiny_model(), family="tiny")
    assert model["graph_hash"] == graph_key(load(tiny_model())).digest
    assert model["family"] == "tiny" and model["op_counts"] == {"Conv": 1, "Relu": 1}
    body = {"graph_hash": model["graph_hash"], "platform": FAKE, "batch_size": 2}
    first = server.http.post("/v1/queries", json=body, headers=server.auth)
    assert first.status_code == 202
    job = first.json()["job"]
    assert first.headers["location"] == f"/v1/jobs/{job['id']}"
    done = wait_done(server, job["id"])
    assert done["job"]["state"] == "done" and done["job"]["attempts"] == 1
    assert done["result"]["status"] == "ok" and done["result"]["batch_size"] == 2
    # the second time it is a cache hit, open to anonymous readers
    hit = server.http.post("/v1/queries", json=body)
    assert hit.status_code == 200 and hit.json()["cached"] is True
    assert hit.json()["measurement"] == done["measurement"]
    stats = server.http.get("/v1/stats").json()
    assert (stats["measurements"], stats["lookup_hits"], stats["lookup_misses"]) == (1, 1, 1)


def test_identical_concurrent_queries_share_one_job(server: Server) -> None:
    digest = upload(server, tiny_model(channels=5))["graph_hash"]
    body = {"graph_hash": digest, "platform": FAKE}

    def ask(_: int) -> dict:
        return server.http.post("/v1/queries", json=body, headers=server.auth).json()

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, range(16)))
    job_ids = {a["job"]["id"] for a in answers if a["status"] == "pending"}
    assert len(job_ids) <= 1
    if job_ids:
        done = wait_done(server, job_ids.pop())
        assert done["job"]["attempts"] == 1
    page = server.http.get("/v1/measurements", params={"graph_hash": digest}).json()
    assert len(page["items"]) == 1


def test_measuring_needs_a_token_but_reading_does_not(server: Server) -> None:
    digest = upload(server, tiny_model(channels=6))["graph_hash"]
    body = {"graph_hash": digest, "platform": FAKE}
    anonymous = server.http.post("/v1/queries", json=body)
    assert anonymous.status_code == 401 and "token" in anonymous.json()["detail"]
    wrong = server.http.post("/v1/queries", json=body, headers={"Authorization": "Bearer nnlat_x"})
    assert wrong.status_code == 403
    malformed = server.http.post("/v1/queries", json=body, headers={"Authorization": "Basic abc"})
    assert malformed.status_code == 401
    no_token = server.http.post("/v1/models", content=tiny_model().SerializeToString())
    assert no_token.status_code == 401
    assert server.http.get("/v1/models").status_code == 200


def test_closed_reads_need_a_token(tmp_path: Path) -> None:
    for server in make_server(tmp_path, open_reads=False):
        assert server.http.get("/v1/models").status_code == 401
        assert server.http.get("/v1/models", headers=server.auth).status_code == 200
        assert server.http.get("/v1/health").status_code == 200  # monitors need no token


@pytest.mark.parametrize(
    ("payload", "status", "message"),
    [
        (b"", 400, "empty body"),
        (b"this is not onnx at all", 400, "ONNX"),
        (b"\x00" * 300_000, 413, "over the limit"),
    ],
)
def test_bad_uploads_are_refused_and_nothing_is_stored(
    server: Server, payload: bytes, status: int, message: str
) -> None:
    response = server.http.post("/v1/models", content=payload, headers=server.auth)
    assert response.status_code == status, response.text
    assert message.lower() in response.json()["detail"].lower()
    assert server.store.stats().models == 0
    assert server.http.get("/v1/health").status_code == 200  # still serving


@pytest.mark.parametrize("location", ["../../etc/passwd", "/etc/passwd", "weights.bin"])
def test_external_data_paths_are_refused(server: Server, location: str) -> None:
    model = tiny_model()
    weight = model.graph.initializer[0]
    weight.data_location = onnx.TensorProto.EXTERNAL
    weight.ClearField("raw_data")
    weight.ClearField("float_data")
    weight.external_data.add(key="location", value=location)
    response = server.http.post(
        "/v1/models", content=model.SerializeToString(), headers=server.auth
    )
    assert response.status_code == 400
    assert "external" in response.json()["detail"]
    assert server.store.stats().models == 0


@pytest.mark.parametrize(
    "params",
    [
        {"platform": "x' OR '1'='1"},
        {"family": "resnet; DROP TABLE models"},
        {"graph_hash": "../../secret"},
        {"status": "ok' --"},
        {"limit": "100000"},
        {"offset": "-1"},
    ],
)
def test_hostile_filters_get_422(server: Server, params: dict) -> None:
    response = server.http.get("/v1/measurements", params=params)
    assert response.status_code == 422
    assert server.http.get("/v1/measurements").status_code == 200


def test_bad_queries_say_what_is_wrong(server: Server) -> None:
    unknown = server.http.post(
        "/v1/queries", json={"graph_hash": "0" * 16, "platform": FAKE}, headers=server.auth
    )
    assert unknown.status_code == 404 and "upload it first" in unknown.json()["detail"]
    digest = upload(server, tiny_model())["graph_hash"]
    shapes = server.http.post(
        "/v1/queries",
        json={"graph_hash": digest, "platform": FAKE, "input_shapes": {"nope": [1, 2]}},
        headers=server.auth,
    )
    assert shapes.status_code == 400 and "nope" in shapes.json()["detail"]
    platform = server.http.post(
        "/v1/queries", json={"graph_hash": digest, "platform": "nonsense"}, headers=server.auth
    )
    assert platform.status_code == 400 and "platform name" in platform.json()["detail"]
    extra = server.http.post(
        "/v1/queries",
        json={"graph_hash": digest, "platform": FAKE, "sql": "x"},
        headers=server.auth,
    )
    assert extra.status_code == 422
    assert server.http.get("/v1/jobs/" + "a" * 32).status_code == 404
    assert server.http.get("/v1/jobs/../../etc").status_code == 404


def test_listings_paginate(server: Server) -> None:
    digests = [upload(server, tiny_model(channels=c))["graph_hash"] for c in (2, 3, 4)]
    first = server.http.get("/v1/models", params={"limit": 2}).json()
    assert [m["graph_hash"] for m in first["items"]] == digests[:2]
    assert first["next_offset"] == 2
    rest = server.http.get("/v1/models", params={"limit": 2, "offset": 2}).json()
    assert [m["graph_hash"] for m in rest["items"]] == digests[2:] and rest["next_offset"] is None
    assert server.http.get(f"/v1/models/{digests[0]}").json()["graph_hash"] == digests[0]
    assert server.http.get(f"/v1/models/{'f' * 16}").status_code == 404


def test_platforms_show_live_workers(server: Server) -> None:
    platforms = {p["name"]: p for p in server.http.get("/v1/platforms").json()}
    assert platforms[FAKE]["workers"] == 1 and platforms[FAKE]["registered"] is False


def test_predict_a_stored_model(server: Server) -> None:
    from nnlat.predictor.api import load_predictor

    platform = load_predictor().platforms[0]
    digest = upload(server, tiny_model())["graph_hash"]
    answer = server.http.post(
        "/v1/predictions", json={"graph_hash": digest, "platform": platform, "batch_size": 4}
    )
    assert answer.status_code == 200, answer.text
    prediction = answer.json()
    assert prediction["latency_ms"] > 0 and prediction["platform"] == platform
    assert prediction["batch_size"] == 4
    unknown = server.http.post(
        "/v1/predictions", json={"graph_hash": digest, "platform": "a-b1.0-fp32"}
    )
    assert unknown.status_code == 400 and platform in unknown.json()["detail"]
