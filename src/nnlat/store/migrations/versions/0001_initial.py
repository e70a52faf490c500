"""Initial schema: models, platforms, measurements, counters.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_MYSQL = ("mysql", "mariadb")
# Spelled out here rather than imported from tables.py: a revision is frozen in time.
# Names are final (op.f): the metadata's naming convention must not rewrite them.
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_ONNX = sa.LargeBinary().with_variant(mysql.LONGBLOB(), *_MYSQL)
_TIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), *_MYSQL)
# InnoDB for transactions and foreign keys; utf8mb4 for any text a runtime error may hold.
_MYSQL_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    """Create the four tables, their indexes, and the two lookup counters."""
    op.create_table(
        "models",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("graph_hash", sa.String(16), nullable=False),
        sa.Column("hash_scheme", sa.Integer, nullable=False),
        sa.Column("family", sa.String(64)),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("zoo_spec", sa.JSON),
        sa.Column("onnx", _ONNX),
        sa.Column("onnx_size", sa.BigInteger, nullable=False),
        sa.Column("flops", sa.BigInteger, nullable=False),
        sa.Column("macs", sa.BigInteger, nullable=False),
        sa.Column("params", sa.BigInteger, nullable=False),
        sa.Column("bytes_moved", sa.BigInteger, nullable=False),
        sa.Column("nodes", sa.Integer, nullable=False),
        sa.Column("kernels", sa.Integer, nullable=False),
        sa.Column("op_counts", sa.JSON, nullable=False),
        sa.Column("unknown_ops", sa.JSON, nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_models")),
        sa.UniqueConstraint("graph_hash", name=op.f("uq_models_graph_hash")),
        **_MYSQL_OPTIONS,
    )
    op.create_index(op.f("ix_models_family"), "models", ["family"])

    op.create_table(
        "platforms",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("hardware", sa.String(64), nullable=False),
        sa.Column("runtime", sa.String(32), nullable=False),
        sa.Column("runtime_version", sa.String(64), nullable=False),
        sa.Column("dtype", sa.String(16), nullable=False),
        sa.Column("threads", sa.Integer),
        sa.Column("device", sa.String(16), nullable=False),
        sa.Column("descriptor", sa.JSON, nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_platforms")),
        sa.UniqueConstraint("name", name=op.f("uq_platforms_name")),
        **_MYSQL_OPTIONS,
    )

    op.create_table(
        "measurements",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("model_id", _ID, nullable=False),
        sa.Column("platform_id", _ID, nullable=False),
        sa.Column("batch_size", sa.Integer, nullable=False),
        sa.Column("input_shapes", sa.Text, nullable=False),
        sa.Column("input_shapes_hash", sa.String(32), nullable=False),
        sa.Column("protocol_version", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("n", sa.Integer),
        sa.Column("mean_ms", sa.Double),
        sa.Column("median_ms", sa.Double),
        sa.Column("p90_ms", sa.Double),
        sa.Column("p99_ms", sa.Double),
        sa.Column("std_ms", sa.Double),
        sa.Column("cv", sa.Double),
        sa.Column("min_ms", sa.Double),
        sa.Column("max_ms", sa.Double),
        sa.Column("median_ci95_ms", sa.Double),
        sa.Column("stable", sa.Boolean),
        sa.Column("compile_ms", sa.Double),
        sa.Column("cold_ms", sa.Double),
        sa.Column("peak_memory_bytes", sa.BigInteger),
        sa.Column("stop_reason", sa.String(16)),
        sa.Column("warmup_settled", sa.Boolean),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("environment", sa.JSON, nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("stored_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_measurements")),
        sa.ForeignKeyConstraint(
            ["model_id"], ["models.id"], name=op.f("fk_measurements_model_id_models")
        ),
        sa.ForeignKeyConstraint(
            ["platform_id"], ["platforms.id"], name=op.f("fk_measurements_platform_id_platforms")
        ),
        sa.UniqueConstraint(
            "model_id",
            "platform_id",
            "batch_size",
            "input_shapes_hash",
            "protocol_version",
            name=op.f("uq_measurements_cache_key"),
        ),
        sa.CheckConstraint(
            "status IN ('ok', 'failed', 'unsupported')", name=op.f("ck_measurements_status")
        ),
        **_MYSQL_OPTIONS,
    )
    op.create_index(
        op.f("ix_measurements_platform_id_status"), "measurements", ["platform_id", "status"]
    )

    counters = op.create_table(
        "counters",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_counters")),
        **_MYSQL_OPTIONS,
    )
    op.bulk_insert(
        counters,
        [{"name": "lookup_hits", "value": 0}, {"name": "lookup_misses", "value": 0}],
    )


def downgrade() -> None:
    """Drop everything the upgrade created.

    Tables go with their indexes: MySQL refuses to drop an index a foreign key uses.
    """
    op.drop_table("counters")
    op.drop_table("measurements")
    op.drop_table("platforms")
    op.drop_table("models")
