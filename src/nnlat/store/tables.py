"""The database schema: models, platforms, measurements, counters, jobs and API tokens.

These ORM classes never leave ``nnlat.store``; :class:`nnlat.store.Store` turns rows into
domain values. A change here needs a new Alembic revision in ``migrations/versions/``
(``tests/store`` checks that the migrations build exactly this schema).

Portable choices:
    * ``Double`` for milliseconds (MySQL's ``FLOAT`` is single precision).
    * ONNX and source bytes as ``LONGBLOB`` on MySQL/MariaDB, whose ``BLOB`` stops at
      64 KiB.
    * Timestamps in UTC, stored naive, with microseconds on MySQL (``DATETIME(6)``).
    * Input shapes as canonical JSON text plus its 32-hex hash; the hash is what the
      cache key indexes, because MySQL cannot index ``TEXT``/``JSON`` columns.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

_MYSQL = ("mysql", "mariadb")

# Named constraints, so later migrations can drop or alter them by name on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

STATUSES = ("ok", "failed", "unsupported")
JOB_STATES = ("queued", "running", "done", "failed")

Onnx = sa.LargeBinary().with_variant(mysql.LONGBLOB(), *_MYSQL)
Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")  # SQLite autoincrements INTEGER only


class UtcDateTime(sa.TypeDecorator[datetime]):
    """A timezone-aware UTC datetime in Python, a naive UTC timestamp in the database.

    Naive datetimes given to the store are taken to be UTC already.
    """

    impl = sa.DateTime
    cache_ok = True

    def load_dialect_impl(self, dialect: sa.Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name in _MYSQL:
            return dialect.type_descriptor(mysql.DATETIME(fsp=6))
        return dialect.type_descriptor(sa.DateTime())

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base holding :data:`metadata`."""

    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)


class ModelRow(Base):
    """One distinct graph, keyed by its structural hash.

    ``onnx`` holds the weight-free ONNX unless ``zoo_spec`` can regenerate it. A model
    loaded from another format (TFLite) also keeps that format and its original file,
    weights included (``source_format``, ``source``): LiteRT and Vela run exactly that
    file. Both are NULL for ONNX models.
    """

    __tablename__ = "models"
    __table_args__ = (sa.Index("ix_models_family", "family"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    graph_hash: Mapped[str] = mapped_column(sa.String(16), unique=True)
    hash_scheme: Mapped[int] = mapped_column(sa.Integer)
    family: Mapped[str | None] = mapped_column(sa.String(64))
    tags: Mapped[list[str]] = mapped_column(sa.JSON)
    zoo_spec: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)
    onnx: Mapped[bytes | None] = mapped_column(Onnx)
    onnx_size: Mapped[int] = mapped_column(sa.BigInteger)
    source_format: Mapped[str | None] = mapped_column(sa.String(16))
    source: Mapped[bytes | None] = mapped_column(Onnx)
    flops: Mapped[int] = mapped_column(sa.BigInteger)
    macs: Mapped[int] = mapped_column(sa.BigInteger)
    params: Mapped[int] = mapped_column(sa.BigInteger)
    bytes_moved: Mapped[int] = mapped_column(sa.BigInteger)
    nodes: Mapped[int] = mapped_column(sa.Integer)
    kernels: Mapped[int] = mapped_column(sa.Integer)
    op_counts: Mapped[dict[str, int]] = mapped_column(sa.JSON)
    unknown_ops: Mapped[dict[str, int]] = mapped_column(sa.JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class PlatformRow(Base):
    """A platform, keyed by its name (``hardware-runtimeX.Y-dtype[-tN]``)."""

    __tablename__ = "platforms"

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(128), unique=True)
    hardware: Mapped[str] = mapped_column(sa.String(64))
    runtime: Mapped[str] = mapped_column(sa.String(32))
    runtime_version: Mapped[str] = mapped_column(sa.String(64))
    dtype: Mapped[str] = mapped_column(sa.String(16))
    threads: Mapped[int | None] = mapped_column(sa.Integer)
    device: Mapped[str] = mapped_column(sa.String(16))
    descriptor: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class MeasurementRow(Base):
    """One result of a model on a platform; unique on the cache key.

    The cache key is (model, platform, batch size, input shapes, protocol version); the
    statistics are NULL unless ``status`` is ``"ok"``.
    """

    __tablename__ = "measurements"
    __table_args__ = (
        sa.UniqueConstraint(
            "model_id",
            "platform_id",
            "batch_size",
            "input_shapes_hash",
            "protocol_version",
            name="uq_measurements_cache_key",
        ),
        sa.Index("ix_measurements_platform_id_status", "platform_id", "status"),
        sa.CheckConstraint(f"status IN {STATUSES!r}", name="status"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    model_id: Mapped[int] = mapped_column(Id, sa.ForeignKey("models.id"))
    platform_id: Mapped[int] = mapped_column(Id, sa.ForeignKey("platforms.id"))
    batch_size: Mapped[int] = mapped_column(sa.Integer)
    input_shapes: Mapped[str] = mapped_column(sa.Text)
    input_shapes_hash: Mapped[str] = mapped_column(sa.String(32))
    protocol_version: Mapped[int] = mapped_column(sa.Integer)
    status: Mapped[str] = mapped_column(sa.String(16))
    error: Mapped[str | None] = mapped_column(sa.Text)
    n: Mapped[int | None] = mapped_column(sa.Integer)
    mean_ms: Mapped[float | None] = mapped_column(sa.Double)
    median_ms: Mapped[float | None] = mapped_column(sa.Double)
    p90_ms: Mapped[float | None] = mapped_column(sa.Double)
    p99_ms: Mapped[float | None] = mapped_column(sa.Double)
    std_ms: Mapped[float | None] = mapped_column(sa.Double)
    cv: Mapped[float | None] = mapped_column(sa.Double)
    min_ms: Mapped[float | None] = mapped_column(sa.Double)
    max_ms: Mapped[float | None] = mapped_column(sa.Double)
    median_ci95_ms: Mapped[float | None] = mapped_column(sa.Double)
    stable: Mapped[bool | None] = mapped_column(sa.Boolean)
    compile_ms: Mapped[float | None] = mapped_column(sa.Double)
    cold_ms: Mapped[float | None] = mapped_column(sa.Double)
    peak_memory_bytes: Mapped[int | None] = mapped_column(sa.BigInteger)
    stop_reason: Mapped[str | None] = mapped_column(sa.String(16))
    warmup_settled: Mapped[bool | None] = mapped_column(sa.Boolean)
    energy_j: Mapped[float | None] = mapped_column(sa.Double)
    energy_note: Mapped[str | None] = mapped_column(sa.Text)
    deterministic: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    npu: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)
    # SQL NULL, not JSON null, when there is none: "which rows lack a profile" is a query.
    node_profile: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON(none_as_null=True))
    node_profile_note: Mapped[str | None] = mapped_column(sa.Text)
    source: Mapped[str] = mapped_column(sa.Text)
    environment: Mapped[dict[str, str]] = mapped_column(sa.JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    stored_at: Mapped[datetime] = mapped_column(UtcDateTime)


class CounterRow(Base):
    """A named running total (``lookup_hits``, ``lookup_misses``), bumped atomically."""

    __tablename__ = "counters"

    name: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    value: Mapped[int] = mapped_column(sa.BigInteger)


class JobRow(Base):
    """A measurement asked of the device farm; one row per cache key, reused on a retry.

    The unique cache key is what makes identical concurrent queries run once, across
    processes and hosts: the second submitter's insert fails and it joins the first job.
    """

    __tablename__ = "jobs"
    __table_args__ = (
        sa.UniqueConstraint(
            "graph_hash",
            "platform",
            "batch_size",
            "input_shapes_hash",
            "protocol_version",
            name="uq_jobs_cache_key",
        ),
        sa.Index("ix_jobs_state", "state"),
        sa.CheckConstraint(f"state IN {JOB_STATES!r}", name="state"),
    )

    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    graph_hash: Mapped[str] = mapped_column(sa.String(16))
    platform: Mapped[str] = mapped_column(sa.String(128))
    batch_size: Mapped[int] = mapped_column(sa.Integer)
    input_shapes: Mapped[str] = mapped_column(sa.Text)
    input_shapes_hash: Mapped[str] = mapped_column(sa.String(32))
    protocol_version: Mapped[int] = mapped_column(sa.Integer)
    refresh: Mapped[bool] = mapped_column(sa.Boolean)
    state: Mapped[str] = mapped_column(sa.String(16))
    attempts: Mapped[int] = mapped_column(sa.Integer)
    error: Mapped[str | None] = mapped_column(sa.Text)
    worker: Mapped[str | None] = mapped_column(sa.String(255))
    measurement_status: Mapped[str | None] = mapped_column(sa.String(16))
    measure_seconds: Mapped[float | None] = mapped_column(sa.Double)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class TokenRow(Base):
    """An API token of the server, kept as its SHA-256 digest (never the token itself)."""

    __tablename__ = "tokens"

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64), unique=True)
    digest: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


metadata = Base.metadata
