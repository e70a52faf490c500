"""The README's Python examples run as written.

Two substitutions make them run here: ``PLATFORM`` becomes this host's onnxruntime
platform, and ``http://HOST:8000`` a live server in a thread (measuring on this host,
briefly). ``model.onnx`` / ``other.onnx`` are small CNNs with an input named ``input``
and a dynamic batch; ``my-predictor/`` is the shipped predictor, saved.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import onnx
import pytest
import uvicorn

from nnlat.farm import LocalDispatcher
from nnlat.measure.runner import reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.server import create_app
from nnlat.settings import Settings
from nnlat.store import Store
from nnlat.testing import tiny_model

README = Path(__file__).parents[1] / "README.md"
PLATFORM_LINE = re.compile(r'^PLATFORM = "[^"]+"', re.MULTILINE)


def python_blocks() -> list[str]:
    """The README's fenced ``python`` blocks, in order."""
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def _model(path: Path, channels: int) -> None:
    model = tiny_model(channels=channels, dynamic_batch=True)
    model.graph.input[0].name = "input"
    model.graph.node[0].input[0] = "input"
    onnx.save(model, path)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A live nnlat server measuring on this host's real backends; (url, token)."""
    store = Store.open(f"sqlite:///{tmp_path / 'server.db'}")
    token = store.tokens.create("readme")
    dispatcher = LocalDispatcher(store, MeasureSpec(max_time_s=0.3))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(Settings(), store=store, dispatcher=dispatcher)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", token
    server.should_exit = True
    thread.join(timeout=10)


@pytest.mark.slow
def test_the_readme_python_examples_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: tuple[str, str]
) -> None:
    from nnlat.predictor.api import load_predictor

    blocks = python_blocks()
    assert len(blocks) >= 2 and all(PLATFORM_LINE.search(b) or "Client" in b for b in blocks)
    _model(tmp_path / "model.onnx", 8)
    _model(tmp_path / "other.onnx", 4)
    load_predictor().save(tmp_path / "my-predictor")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NNLAT_DB_URL", f"sqlite:///{tmp_path / 'local.db'}")
    url, token = server
    platform = reference_platform().name
    namespace: dict[str, object] = {"token": token}
    for block in blocks:
        code = PLATFORM_LINE.sub(f"PLATFORM = {platform!r}", block)
        code = code.replace("http://HOST:8000", url)
        exec(compile(code, str(README), "exec"), namespace)
    assert namespace["result"].measurement.status == "ok"  # type: ignore[attr-defined]
    # Again: now every query is a cache hit, and wait=False still gives a job.
    exec(compile(code, str(README), "exec"), namespace)
    assert namespace["job"].state == "done"  # type: ignore[attr-defined]
    assert namespace["result"].cached  # type: ignore[attr-defined]
