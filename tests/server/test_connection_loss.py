"""The server survives its database connections being cut (pool pre-ping reconnects)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from nnlat.farm import LocalDispatcher
from nnlat.measure.types import MeasureSpec
from nnlat.server import create_app
from nnlat.settings import Settings
from nnlat.store import Store


def cut_connections(url: sa.URL) -> int:
    """Kill every server-side connection to the test database; return how many."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            if url.get_backend_name() == "postgresql":
                search_path = url.query["options"].split("=", 1)[1]
                pids = (
                    connection.execute(
                        sa.text(
                            "SELECT pid FROM pg_stat_activity WHERE application_name = :name "
                            "AND pid <> pg_backend_pid()"
                        ),
                        {"name": search_path},
                    )
                    .scalars()
                    .all()
                )
                for pid in pids:
                    connection.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            else:
                pids = (
                    connection.execute(
                        sa.text(
                            "SELECT id FROM information_schema.processlist "
                            "WHERE db = :db AND id <> CONNECTION_ID()"
                        ),
                        {"db": url.database},
                    )
                    .scalars()
                    .all()
                )
                for pid in pids:
                    connection.exec_driver_sql(f"KILL CONNECTION {int(pid)}")
            return len(pids)
    finally:
        engine.dispose()


@pytest.fixture
def server_on(databases) -> Iterator[tuple[TestClient, sa.URL]]:
    url = sa.make_url(databases.url())
    if url.get_backend_name() == "postgresql":  # tag our connections to find them
        url = url.update_query_dict({"application_name": url.query["options"].split("=", 1)[1]})
    store = Store.open(url.render_as_string(hide_password=False))
    app = create_app(Settings(), store=store, dispatcher=LocalDispatcher(store, MeasureSpec()))
    with TestClient(app) as http:
        yield http, url


@pytest.mark.services
@pytest.mark.parametrize("databases", ["postgresql", "mariadb"], indirect=True)
def test_requests_after_the_connections_are_cut_still_succeed(server_on) -> None:
    http, url = server_on
    for _ in range(3):
        assert http.get("/v1/models").status_code == 200
    assert cut_connections(url) >= 1
    for path in ("/v1/models", "/v1/stats", "/v1/health"):
        response = http.get(path)
        assert response.status_code == 200, response.text
    assert http.get("/v1/health").json()["database"] == "ok"
