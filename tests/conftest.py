"""Shared fixtures: the onnx wheel's weight-free real CNNs, and fresh databases.

Databases: a fresh, empty database per test on SQLite, PostgreSQL and MariaDB. Server
databases are isolated per store, not shared: PostgreSQL gets a new schema (via
``search_path``), MariaDB a new database, both dropped afterwards, so reruns and
concurrent runs never see each other's rows. A server that cannot be reached skips its
tests locally and fails them under CI (``CI`` set), where the services must be up.
Override the servers with ``NNLAT_TEST_POSTGRES_URL`` / ``NNLAT_TEST_MYSQL_URL``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import onnx
import pytest
import sqlalchemy as sa

from nnlat.store import Store

LIGHT_MODELS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


@pytest.fixture
def light_resnet50() -> Path:
    """ResNet-50 (Caffe2 export, opset 9, weights as ConstantOfShape)."""
    return LIGHT_MODELS / "light_resnet50.onnx"


SERVER_URLS = {
    "postgresql": os.environ.get(
        "NNLAT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    ),
    "mariadb": os.environ.get("NNLAT_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/test"),
}
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.services),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.services),
]

_unreachable: dict[str, str] = {}


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _server_engine(backend: str) -> sa.Engine:
    """An engine on the server's base database, or skip/fail if it does not answer."""
    url = SERVER_URLS[backend]
    if backend not in _unreachable:
        engine = sa.create_engine(url, connect_args={"connect_timeout": 5})
        try:
            with engine.connect():
                pass
            return engine
        except Exception as exc:
            engine.dispose()
            _unreachable[backend] = f"{type(exc).__name__}: {exc}".splitlines()[0]
    shown = sa.make_url(url).render_as_string(hide_password=True)
    message = f"{backend} at {shown} is unreachable ({_unreachable[backend]})"
    if _in_ci():
        pytest.fail(f"{message}; CI must provide the database services", pytrace=False)
    pytest.skip(message)


class FreshDatabases:
    """Creates empty databases (files, schemas or databases) and removes them at the end."""

    def __init__(self, backend: str, tmp_path: Path) -> None:
        self.backend = backend
        self._tmp_path = tmp_path
        self._server = None if backend == "sqlite" else _server_engine(backend)
        self._created: list[str] = []
        self._stores: list[Store] = []

    def url(self) -> str:
        """The URL of a new, empty database."""
        name = f"nnlat_test_{uuid.uuid4().hex[:12]}"
        if self._server is None:
            return f"sqlite:///{self._tmp_path / name}.db"
        base = self._server.url
        with self._server.begin() as connection:
            if self.backend == "postgresql":
                connection.exec_driver_sql(f"CREATE SCHEMA {name}")
                url = base.update_query_dict({"options": f"-csearch_path={name}"})
            else:
                connection.exec_driver_sql(f"CREATE DATABASE {name} CHARACTER SET utf8mb4")
                url = base.set(database=name)
        self._created.append(name)
        return url.render_as_string(hide_password=False)

    def store(self) -> Store:
        """A :class:`Store` migrated onto a new, empty database."""
        store = Store.open(self.url())
        self._stores.append(store)
        return store

    def drop_all(self) -> None:
        for store in self._stores:
            store.close()
        if self._server is None:
            return
        with self._server.begin() as connection:
            for name in self._created:
                if self.backend == "postgresql":
                    connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {name} CASCADE")
                else:
                    connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
        self._server.dispose()


@pytest.fixture(params=BACKENDS)
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FreshDatabases]:
    """Fresh databases of one backend (parametrised over sqlite, postgresql, mariadb)."""
    fresh = FreshDatabases(request.param, tmp_path)
    yield fresh
    fresh.drop_all()


@pytest.fixture
def store(databases: FreshDatabases) -> Store:
    """A store on a new, empty database of the current backend."""
    return databases.store()


@pytest.fixture(autouse=True)
def _no_user_onboardings(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    """Tests never read or write the user's onboarded platforms and host calibrations
    (`nnlat onboard` saves there, and a calibration scales every later prediction)."""
    if "NNLAT_ONBOARD_DIR" not in os.environ:
        monkeypatch.setenv("NNLAT_ONBOARD_DIR", str(tmp_path_factory.mktemp("onboarded")))
