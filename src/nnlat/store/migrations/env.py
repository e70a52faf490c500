"""Alembic's entry point: runs the migrations on the connection handed over in code.

:func:`nnlat.store.migrations.upgrade` puts that connection in ``config.attributes``;
there is no ``alembic.ini`` and no offline (SQL script) mode.
"""

from __future__ import annotations

from alembic import context

from nnlat.store.tables import metadata


def run_migrations() -> None:
    """Run the pending migrations inside the caller's transaction."""
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError(
            "run nnlat migrations through nnlat.store.migrations.upgrade(engine), "
            "not the alembic command line"
        )
    context.configure(
        connection=connection,
        target_metadata=metadata,
        # SQLite can only ALTER by copying a table; batch mode does that for later revisions.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


# Alembic sets ``context.config`` only while it executes this file; a plain import (the
# doctest collector walks every module) must do nothing.
if hasattr(context, "config"):
    run_migrations()
