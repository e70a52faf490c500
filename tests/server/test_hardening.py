"""Hostile callers and hostile models (issue 29): no write before auth, 4xx never 500,
no connection details to anonymous readers, bounded uploads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from onnx import TensorProto, helper
from server_helpers import FAKE, Server, make_server

from nnlat.farm import LocalDispatcher
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.server import create_app
from nnlat.settings import Settings
from nnlat.store import Store
from nnlat.testing import tiny_model


def _model(nodes, inputs, outputs, initializers=(), opset: int = 17) -> bytes:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return model.SerializeToString()


def range_bomb(size: int = 1 << 40) -> bytes:
    """``Range(0, size, 1)`` read by an ``Add``: ONNX's data propagation holds every value
    as a protobuf message (2**40: terabytes; 2**24 took 3.7 GB and 30 s here)."""
    consts = [
        helper.make_node(
            "Constant", [], [n], value=helper.make_tensor(n, TensorProto.INT64, [], [v])
        )
        for n, v in (("s", 0), ("l", size), ("d", 1))
    ]
    return _model(
        [
            *consts,
            helper.make_node("Range", ["s", "l", "d"], ["r"]),
            helper.make_node("Add", ["r", "x"], ["y"]),
        ],
        [helper.make_tensor_value_info("x", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, ["n"])],
    )


def dtype_41() -> bytes:
    return _model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", 41, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )


def cyclic() -> bytes:
    return _model(
        [helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Relu", ["a"], ["b"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])],
    )


def huge_matmuls(count: int = 300) -> bytes:
    """Within every limit (2**36 elements a tensor), but 300 MatMuls of 2**55 FLOPs each
    do not fit a 64-bit INTEGER column."""
    side = 1 << 18
    return _model(
        [helper.make_node("MatMul", ["a", "b"], [f"y{i}"]) for i in range(count)],
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [side, side]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [side, side]),
        ],
        [
            helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [side, side])
            for i in range(count)
        ],
    )


@pytest.mark.parametrize(
    ("payload", "status", "message"),
    [
        (range_bomb(), 413, "max_tensor_elements"),
        (dtype_41(), 400, "element type 41"),
        (cyclic(), 400, "cycle"),
        (huge_matmuls(), 413, "64-bit"),
    ],
    ids=["range-bomb", "dtype-41", "cycle", "cost-overflow"],
)
def test_hostile_uploads_get_a_4xx_and_the_server_keeps_serving(
    server: Server, payload: bytes, status: int, message: str
) -> None:
    response = server.http.post("/v1/models", content=payload, headers=server.auth)
    assert response.status_code == status, response.text
    assert message in response.json()["detail"]
    assert server.store.stats().models == 0
    assert server.http.get("/v1/health").status_code == 200


@pytest.mark.slow
def test_an_upload_over_the_memory_cap_is_refused_naming_it(tmp_path: Path) -> None:
    # Data propagation of 2**21 values takes ~450 MB. With no value limit it runs inside
    # the upload's own child, capped at 128 MiB: that cap is what refuses it.
    for server in make_server(tmp_path, upload_memory_bytes=128 << 20, max_value_elements=1 << 40):
        response = server.http.post("/v1/models", content=range_bomb(1 << 21), headers=server.auth)
        assert response.status_code == 413, response.text
        assert "upload_memory_bytes=134217728" in response.json()["detail"]
        assert server.http.get("/v1/health").status_code == 200
        ok = server.http.post(
            "/v1/models", content=tiny_model().SerializeToString(), headers=server.auth
        )
        assert ok.status_code == 201, ok.text


def _row_counts(store: Store) -> dict[str, int]:
    """Rows of every table but the lookup counters (which count reads, by design)."""
    with store.engine.connect() as connection:
        names = sa.inspect(connection).get_table_names()
        return {
            name: connection.execute(sa.text(f"SELECT COUNT(*) FROM {name}")).scalar_one()
            for name in names
            if name not in ("counters", "alembic_version")
        }


@pytest.fixture
def server_on(databases) -> Iterator[Server]:
    """An open-reads server on a fresh database of each backend."""
    store = databases.store()
    token = store.tokens.create("tester")
    fake = backend_registry({"fake": FakeBackend})
    dispatcher = LocalDispatcher(store, MeasureSpec(max_time_s=0.2), backends=fake)
    app = create_app(Settings(db_url=str(store.url)), store=store, dispatcher=dispatcher)
    with TestClient(app) as http:
        yield Server(http, store, token)


def test_no_row_is_written_before_the_token_is_checked(server_on: Server) -> None:
    server = server_on
    upload = server.http.post(
        "/v1/models", content=tiny_model().SerializeToString(), headers=server.auth
    )
    digest = upload.json()["graph_hash"]
    before = _row_counts(server.store)
    bad = {"Authorization": "Bearer nnlat_not-a-real-token"}
    for batch in range(2, 12):  # a new batch size: a new shaped model to measure
        query = {"graph_hash": digest, "platform": FAKE, "batch_size": batch}
        assert server.http.post("/v1/queries", json=query).status_code == 401
        assert server.http.post("/v1/queries", json=query, headers=bad).status_code == 403
    model = tiny_model(channels=5).SerializeToString()
    assert server.http.post("/v1/models", content=model).status_code == 401
    assert server.http.post("/v1/models", content=model, headers=bad).status_code == 403
    assert _row_counts(server.store) == before


def test_stats_show_the_database_only_to_token_holders(server: Server) -> None:
    anonymous = server.http.get("/v1/stats")
    assert anonymous.status_code == 200 and "url" not in anonymous.json()
    assert "sqlite" not in anonymous.text and "server.db" not in anonymous.text
    assert "url" in server.http.get("/v1/stats", headers=server.auth).json()


@pytest.mark.parametrize("offset", [str(1 << 63), str(1 << 40), "99999999999999999999999"])
def test_offsets_are_bounded(server: Server, offset: str) -> None:
    for path in ("/v1/models", "/v1/measurements"):
        response = server.http.get(path, params={"offset": offset})
        assert response.status_code == 422, response.text
    assert server.http.get("/v1/models", params={"offset": 1 << 31}).status_code == 200


def test_too_large_query_shapes_get_a_4xx(server: Server) -> None:
    digest = server.http.post(
        "/v1/models", content=tiny_model().SerializeToString(), headers=server.auth
    ).json()["graph_hash"]
    query = {
        "graph_hash": digest,
        "platform": FAKE,
        "input_shapes": {"x": [1, 3, 1 << 30, 1 << 30]},
    }
    response = server.http.post("/v1/queries", json=query, headers=server.auth)
    assert response.status_code == 413, response.text
    assert "max_tensor_elements" in response.json()["detail"]


def test_predicting_a_graph_without_operators_says_so(server: Server) -> None:
    constant = helper.make_tensor("c", TensorProto.FLOAT, [2], [1.0, 2.0])
    payload = _model(
        [
            helper.make_node("Constant", [], ["a"], value=constant),
            helper.make_node("Add", ["a", "a"], ["y"]),
        ],
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    digest = server.http.post("/v1/models", content=payload, headers=server.auth).json()[
        "graph_hash"
    ]
    answer = server.http.post("/v1/predictions", json={"graph_hash": digest})
    assert answer.status_code == 400, answer.text
    assert "no operators" in answer.json()["detail"]
