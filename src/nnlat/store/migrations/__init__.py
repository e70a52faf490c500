"""Alembic migrations of the store, run from code: no ``alembic.ini`` anywhere.

:func:`upgrade` brings a database to the newest revision; :meth:`nnlat.store.Store.open`
calls it. To add a column: change ``nnlat/store/tables.py``, then write the revision
against a database at head::

    python -c "from nnlat.store.migrations import new_revision; \\
               new_revision('sqlite:////tmp/nnlat.db', 'add energy_j')"

and review the generated file in ``versions/`` (keep it portable: SQLite, PostgreSQL,
MySQL/MariaDB).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

_HERE = Path(__file__).parent


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration pointing at these migrations, built in code.

    Args:
        connection: the connection ``env.py`` runs the migrations on.
    """
    config = Config()
    config.set_main_option("script_location", str(_HERE))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision id."""
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert revision is not None  # the initial revision always exists
    return revision


def current(engine: Engine) -> str | None:
    """The revision the database is at, or None for an empty database."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> None:
    """Migrate the database behind ``engine`` to the newest revision (no-op when there).

    Example:
        >>> import sqlalchemy as sa
        >>> engine = sa.create_engine("sqlite://")
        >>> upgrade(engine)
        >>> current(engine) == head()
        True
    """
    if current(engine) == head():
        return
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")


def new_revision(url: str, message: str) -> None:
    """Autogenerate a revision from the difference between ``tables.py`` and ``url``."""
    from nnlat.store.url import connect

    engine = connect(url)
    upgrade(engine)
    with engine.begin() as connection:
        command.revision(alembic_config(connection), message=message, autogenerate=True)
