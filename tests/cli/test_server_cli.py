"""``nnlat token``, ``nnlat worker``'s checks, and ``--server`` against a live server."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import onnx
import pytest
import uvicorn
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.farm import LocalDispatcher
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.server import create_app
from nnlat.settings import Settings
from nnlat.store import Store
from nnlat.testing import tiny_model

runner = CliRunner()
FAKE = "fake-fake1.0-fp32-t1"


def test_tokens_are_created_listed_and_revoked(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'nnlat.db'}"
    created = runner.invoke(app, ["token", "create", "ci", "--db", db, "--json"])
    assert created.exit_code == 0, created.output
    token = json.loads(created.stdout)["token"]
    with Store.open(db) as store:
        assert store.tokens.verify(token) == "ci"
    assert runner.invoke(app, ["token", "list", "--db", db]).stdout.split() == ["ci"]
    again = runner.invoke(app, ["token", "create", "ci", "--db", db])
    assert again.exit_code == 2 and "exists" in again.output
    assert runner.invoke(app, ["token", "revoke", "ci", "--db", db]).exit_code == 0
    missing = runner.invoke(app, ["token", "revoke", "ci", "--db", db])
    assert missing.exit_code == 2 and "no token" in missing.output


def test_a_worker_refuses_to_start_without_a_broker_or_on_the_wrong_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NNLAT_BROKER_URL", raising=False)
    no_broker = runner.invoke(app, ["worker", "-p", "epyc-ort1.31-fp32-t1"])
    assert no_broker.exit_code == 2 and "broker" in no_broker.output
    elsewhere = runner.invoke(
        app, ["worker", "-p", "otherhost-ort1.31-fp32-t1", "--broker", "memory://"]
    )
    assert elsewhere.exit_code == 2 and "otherhost" in elsewhere.output


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A real HTTP server in a thread, measuring on the fake backend."""
    store = Store.open(f"sqlite:///{tmp_path / 'server.db'}")
    token = store.tokens.create("cli")
    dispatcher = LocalDispatcher(
        store, MeasureSpec(max_time_s=0.2), backends=backend_registry({"fake": FakeBackend})
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        create_app(Settings(), store=store, dispatcher=dispatcher),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", token
    server.should_exit = True
    thread.join(timeout=10)


def test_query_stats_and_platforms_through_a_server(live_server, tmp_path: Path) -> None:
    url, token = live_server
    model = tmp_path / "tiny.onnx"
    onnx.save(tiny_model(), model)
    remote = ["--server", url, "--token", token]
    first = runner.invoke(app, ["query", str(model), "-p", FAKE, "--json", *remote])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["cached"] is False
    second = runner.invoke(app, ["query", str(model), "-p", FAKE, "--json", *remote])
    assert json.loads(second.stdout)["cached"] is True
    stats = runner.invoke(app, ["db", "stats", "--json", "--server", url])
    assert stats.exit_code == 0 and json.loads(stats.stdout)["measurements"] == 1
    platforms = runner.invoke(app, ["platforms", "--json", "--server", url])
    rows = {p["name"]: p for p in json.loads(platforms.stdout)["platforms"]}
    assert rows[FAKE]["workers"] == 1
    no_platform = runner.invoke(app, ["query", str(model), *remote])
    assert no_platform.exit_code != 0 and "--platform" in no_platform.output
    anonymous = runner.invoke(
        app, ["query", str(tiny_model_file(tmp_path)), "-p", FAKE, "--server", url]
    )
    assert anonymous.exit_code == 2 and "token" in anonymous.output


def test_predict_through_a_server(live_server, tmp_path: Path) -> None:
    from nnlat.predictor.api import load_predictor

    url, token = live_server
    platform = load_predictor().platforms[0]
    model = tmp_path / "tiny.onnx"
    onnx.save(tiny_model(), model)
    result = runner.invoke(
        app, ["predict", str(model), "-p", platform, "--json", "--server", url, "--token", token]
    )
    assert result.exit_code == 0, result.output
    predictions = json.loads(result.stdout)["predictions"]
    assert predictions[0]["model"] == str(model) and predictions[0]["latency_ms"] > 0


def test_an_unreachable_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    model = tmp_path / "tiny.onnx"
    onnx.save(tiny_model(), model)
    result = runner.invoke(app, ["query", str(model), "-p", FAKE, "--server", "http://127.0.0.1:9"])
    assert result.exit_code == 2 and "cannot reach" in result.output


def tiny_model_file(tmp_path: Path) -> Path:
    path = tmp_path / "other.onnx"
    onnx.save(tiny_model(channels=5), path)
    return path


def test_serve_announces_its_url_docs_and_tokens_without_passwords() -> None:
    from nnlat.cli.server_cmd import announcement

    settings = Settings(
        db_url="postgresql+psycopg://alice:secret@db.example/nnlat",
        broker_url="amqp://guest:hidden@127.0.0.1:5672//",
    )
    text = "\n".join(announcement(settings, "0.0.0.0", 8123))
    assert "http://localhost:8123" in text and "http://localhost:8123/docs" in text
    assert "nnlat token create" in text
    assert "secret" not in text and "hidden" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
