"""The in-process test server (FastAPI TestClient) measuring on the fake backend.

A module of its own, not ``conftest``: test modules import these names, and several
test folders have a ``conftest``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from fastapi.testclient import TestClient

from nnlat.farm import LocalDispatcher
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.server import create_app
from nnlat.settings import Settings
from nnlat.store import Store

FAKE = "fake-fake1.0-fp32-t1"


class Server:
    """A test server: its HTTP client, store, a writer token and auth headers."""

    def __init__(self, http: TestClient, store: Store, token: str) -> None:
        self.http = http
        self.store = store
        self.token = token
        self.auth = {"Authorization": f"Bearer {token}"}


def make_server(tmp_path: Path, **settings: object) -> Iterator[Server]:
    store = Store.open(f"sqlite:///{tmp_path / 'server.db'}")
    token = store.tokens.create("tester")
    fake = backend_registry({"fake": FakeBackend})
    dispatcher = LocalDispatcher(store, MeasureSpec(max_time_s=0.2), backends=fake)
    app = create_app(
        Settings(db_url=str(store.url), **settings), store=store, dispatcher=dispatcher
    )
    with TestClient(app) as http:
        yield Server(http, store, token)
