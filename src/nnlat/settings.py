"""Settings of the server, the device farm and the CLI commands that start them.

Read from ``NNLAT_*`` environment variables (``NNLAT_DB_URL``, ``NNLAT_BROKER_URL``, …)
only where a process starts — ``cli/``, ``server/``, ``farm/celery_app.py`` — and passed
down from there; library code never reads the environment itself.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

MiB = 1 << 20


class Settings(BaseSettings):
    """Everything a server or a worker is configured with.

    Attributes:
        db_url: the database (None: ``NNLAT_DB_URL`` is unset, so SQLite in the user
            data dir; a team server wants PostgreSQL or MySQL/MariaDB).
        broker_url: the Celery broker (``amqp://…`` or ``redis://…``); None measures
            misses in the server process itself, on this host's platforms.
        queue_prefix: names the farm's queues (``<prefix>.measure.<platform>``), so
            several deployments can share one broker.
        open_reads: let anyone read (listings, cached queries, predictions); writes
            (uploads, measurements) always need a token.
        max_upload_bytes: the largest ONNX upload accepted.
        measure_max_time_s: timing budget of one measurement (the protocol's
            ``max_time_s``).
        job_timeout_s: a measurement still running after this long is stopped and its
            job failed (a hung runtime must not hold a device forever).
        predictor: a saved predictor directory for ``/v1/predictions`` (None: the
            shipped one).
        job_retries: retries of a job after a transient failure (database or broker
            briefly away), with exponential back-off from ``retry_backoff_s``.

    Example:
        >>> Settings(broker_url="redis://127.0.0.1:6379/0").broker_url
        'redis://127.0.0.1:6379/0'
    """

    model_config = SettingsConfigDict(env_prefix="NNLAT_", frozen=True, extra="ignore")

    db_url: str | None = None
    broker_url: str | None = None
    queue_prefix: str = Field(default="nnlat", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    open_reads: bool = True
    max_upload_bytes: int = Field(default=256 * MiB, gt=0)
    measure_max_time_s: float = Field(default=10.0, gt=0)
    job_timeout_s: float = Field(default=900.0, gt=0)
    predictor: str | None = None
    job_retries: int = Field(default=3, ge=0)
    retry_backoff_s: float = Field(default=2.0, gt=0)
