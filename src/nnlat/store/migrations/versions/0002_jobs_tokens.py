"""Jobs of the device farm and API tokens of the server.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_MYSQL = ("mysql", "mariadb")
# Spelled out here rather than imported from tables.py: a revision is frozen in time.
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_TIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), *_MYSQL)
_MYSQL_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    """Create ``jobs`` (unique on the cache key) and ``tokens``."""
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("graph_hash", sa.String(16), nullable=False),
        sa.Column("platform", sa.String(128), nullable=False),
        sa.Column("batch_size", sa.Integer, nullable=False),
        sa.Column("input_shapes", sa.Text, nullable=False),
        sa.Column("input_shapes_hash", sa.String(32), nullable=False),
        sa.Column("protocol_version", sa.Integer, nullable=False),
        sa.Column("refresh", sa.Boolean, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("worker", sa.String(255)),
        sa.Column("measurement_status", sa.String(16)),
        sa.Column("measure_seconds", sa.Double),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("started_at", _TIME),
        sa.Column("finished_at", _TIME),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
        sa.UniqueConstraint(
            "graph_hash",
            "platform",
            "batch_size",
            "input_shapes_hash",
            "protocol_version",
            name=op.f("uq_jobs_cache_key"),
        ),
        sa.CheckConstraint(
            "state IN ('queued', 'running', 'done', 'failed')", name=op.f("ck_jobs_state")
        ),
        **_MYSQL_OPTIONS,
    )
    op.create_index(op.f("ix_jobs_state"), "jobs", ["state"])
    op.create_table(
        "tokens",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tokens")),
        sa.UniqueConstraint("name", name=op.f("uq_tokens_name")),
        sa.UniqueConstraint("digest", name=op.f("uq_tokens_digest")),
        **_MYSQL_OPTIONS,
    )


def downgrade() -> None:
    """Drop both tables."""
    op.drop_table("tokens")
    op.drop_table("jobs")
