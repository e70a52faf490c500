"""Which database the store opens: explicit URL > NNLAT_DB_URL > SQLite in the data dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from nnlat.store import Store, StoreError, StoreUnavailableError, default_url, resolve_url
from nnlat.store.url import mask


def test_explicit_url_beats_the_environment() -> None:
    environ = {"NNLAT_DB_URL": "postgresql://env@db/nnlat"}
    assert resolve_url("sqlite:////tmp/x.db", environ).get_backend_name() == "sqlite"
    assert resolve_url(None, environ).username == "env"
    assert resolve_url(None, {}).database == default_url().database


@pytest.mark.parametrize(
    ("url", "driver"),
    [
        ("postgresql://u@h/d", "postgresql+psycopg"),
        ("postgres://u@h/d", "postgresql+psycopg"),
        ("mysql://u@h/d", "mysql+pymysql"),
        ("mariadb://u@h/d", "mariadb+pymysql"),
        ("postgresql+psycopg2://u@h/d", "postgresql+psycopg2"),  # a named driver is kept
        ("sqlite:///x.db", "sqlite+pysqlite"),
    ],
)
def test_driver_is_chosen_per_backend(url: str, driver: str) -> None:
    assert resolve_url(url, {}).drivername == driver


def test_bad_urls_are_clear_errors() -> None:
    with pytest.raises(StoreError, match="not a database URL"):
        resolve_url("not a url", {})
    with pytest.raises(StoreError, match="does not support 'mssql'"):
        resolve_url("mssql://sa:pw@db/x", {})


def test_mask_hides_the_password() -> None:
    assert mask("mysql+pymysql://root:hunter2@db:3306/nnlat") == (
        "mysql+pymysql://root:***@db:3306/nnlat"
    )


def test_default_store_is_sqlite_in_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("NNLAT_DB_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # where platformdirs looks on Linux
    with Store.open() as store:
        assert store.stats().models == 0
    assert (tmp_path / "nnlat" / "nnlat.db").is_file()


def test_environment_selects_the_database(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NNLAT_DB_URL", f"sqlite:///{tmp_path}/from-env.db")
    with Store.open() as store:
        assert store.url.endswith("from-env.db")
    assert (tmp_path / "from-env.db").is_file()


def test_sqlite_file_that_cannot_be_created_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreUnavailableError, match="cannot open the nnlat database"):
        Store.open(f"sqlite:///{blocker}/nnlat.db")
