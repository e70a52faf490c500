"""Which database the store uses, and how to connect to it.

Resolution order: an explicit URL, else the ``NNLAT_DB_URL`` environment variable, else a
SQLite file in the user data directory (``platformdirs.user_data_dir("nnlat")``). The
environment is read when :func:`resolve_url` is called, never at import.

Drivers: a URL without one gets psycopg (v3) for PostgreSQL and PyMySQL for MySQL and
MariaDB (install them with ``pip install nnlat[db]``); a URL that names a driver keeps it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import ArgumentError, DBAPIError

from nnlat.store.errors import StoreError, StoreUnavailableError

ENV_VAR = "NNLAT_DB_URL"
CONNECT_TIMEOUT_S = 10

# backend (URL scheme before any "+driver") → the driver used when the URL names none
_DEFAULT_DRIVERS = {
    "sqlite": "pysqlite",
    "postgresql": "psycopg",
    "postgres": "psycopg",
    "mysql": "pymysql",
    "mariadb": "pymysql",
}


def default_url() -> URL:
    """The embedded default: ``nnlat.db`` in the user data directory.

    Example:
        >>> default_url().get_backend_name(), default_url().database.endswith("nnlat.db")
        ('sqlite', True)
    """
    path = Path(platformdirs.user_data_dir("nnlat", appauthor=False)) / "nnlat.db"
    return URL.create("sqlite", database=str(path))


def resolve_url(url: str | URL | None = None, environ: Mapping[str, str] | None = None) -> URL:
    """The database URL to use, with its driver filled in.

    Args:
        url: an explicit SQLAlchemy URL; wins over everything else.
        environ: where to look for ``NNLAT_DB_URL`` (default: ``os.environ``).

    Returns:
        A :class:`sqlalchemy.engine.URL` naming its driver.

    Raises:
        StoreError: the URL does not parse or names a database nnlat does not support.

    Example:
        >>> resolve_url("postgresql://me:secret@db/nnlat").drivername
        'postgresql+psycopg'
        >>> resolve_url(None, environ={"NNLAT_DB_URL": "mariadb://root@db/nnlat"}).drivername
        'mariadb+pymysql'
        >>> resolve_url(None, environ={}).get_backend_name()
        'sqlite'
    """
    environ = os.environ if environ is None else environ
    if url is None:
        url = environ.get(ENV_VAR) or default_url()
    try:
        parsed = sa.make_url(url)
    except ArgumentError as exc:
        raise StoreError(
            f"{url!r} is not a database URL; write e.g. sqlite:////path/nnlat.db, "
            "postgresql://user@host/db or mysql://user@host/db"
        ) from exc
    backend, _, driver = parsed.drivername.partition("+")
    if backend not in _DEFAULT_DRIVERS:
        raise StoreError(
            f"nnlat does not support {backend!r} databases ({mask(parsed)}); "
            "use SQLite, PostgreSQL, MySQL or MariaDB"
        )
    backend = "postgresql" if backend == "postgres" else backend
    return parsed.set(drivername=f"{backend}+{driver or _DEFAULT_DRIVERS[backend]}")


def mask(url: str | URL) -> str:
    """The URL as text with its password replaced by ``***``.

    Example:
        >>> mask("postgresql+psycopg://me:secret@db/nnlat")
        'postgresql+psycopg://me:***@db/nnlat'
    """
    return sa.make_url(url).render_as_string(hide_password=True)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # SQLite leaves foreign keys unchecked unless asked, per connection.
    cursor.execute("PRAGMA foreign_keys=ON")
    # WAL lets a reader (the server) run while a writer (a worker) commits.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def create_engine(url: URL) -> Engine:
    """An engine for ``url`` with nnlat's connection settings; does not connect.

    Connections are checked before use (``pool_pre_ping``), so a server restart costs a
    reconnect, not an error. MySQL/MariaDB sessions run in strict (``TRADITIONAL``) mode
    so an out-of-range or over-long value fails instead of being silently truncated.

    Raises:
        StoreUnavailableError: the driver is not installed.
    """
    backend = url.get_backend_name()
    connect_args: dict[str, Any] = {}
    if backend == "postgresql" and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    if backend in ("mysql", "mariadb"):
        connect_args["init_command"] = "SET SESSION sql_mode = 'TRADITIONAL'"
        if "charset" not in url.query:
            url = url.update_query_dict({"charset": "utf8mb4"})
        if "connect_timeout" not in url.query:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    try:
        engine = sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except ImportError as exc:
        raise StoreUnavailableError(
            f"cannot open the database at {mask(url)}: its driver is not installed ({exc}); "
            "run `pip install nnlat[db]`"
        ) from exc
    if backend == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def connect(url: str | URL | None = None) -> Engine:
    """Resolve ``url``, create its engine and check that the database answers.

    For SQLite the folder of the database file is created if needed.

    Args:
        url: see :func:`resolve_url`.

    Returns:
        A connected-once :class:`sqlalchemy.engine.Engine`.

    Raises:
        StoreError: the URL is not one nnlat supports.
        StoreUnavailableError: the database cannot be reached or opened; the message names
            the URL with its password masked and says what to do.

    Example:
        >>> import tempfile
        >>> engine = connect(f"sqlite:///{tempfile.mkdtemp()}/x/nnlat.db")
        >>> engine.dialect.name
        'sqlite'
    """
    resolved = resolve_url(url)
    backend = resolved.get_backend_name()
    if backend == "sqlite":
        hint = "check that its folder exists and is writable, or set NNLAT_DB_URL"
    else:
        hint = (
            "start the database server or fix the URL (NNLAT_DB_URL); "
            "unset NNLAT_DB_URL to use the local SQLite database"
        )
    try:
        if backend == "sqlite" and resolved.database not in (None, "", ":memory:"):
            Path(resolved.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(resolved)
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except (DBAPIError, OSError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise StoreUnavailableError(
            f"cannot open the nnlat database at {mask(resolved)}: {reason}; {hint}"
        ) from exc
    return engine
