"""Settings of the server, the device farm and the CLI commands that start them.

Read from ``NNLAT_*`` environment variables (``NNLAT_DB_URL``, ``NNLAT_BROKER_URL``, …)
only where a process starts — ``cli/``, ``server/``, ``farm/celery_app.py`` — and passed
down from there; library code never reads the environment itself.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from nnlat.limits import DEFAULT_LIMITS, Limits

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
        stale_after_s: a job queued or running for longer than this is taken as lost
            (its broker message or its worker gone): the next identical query and the
            server's sweep send it again.
        sweep_interval_s: how often the server looks for such jobs (0: never).
        upload_memory_bytes, upload_time_s: what parsing and normalising one upload may
            take, in a child process (so no upload can take the server down).
        max_nodes, max_graph_depth, max_subgraphs, max_tensor_elements, max_value_elements,
            max_inference_bytes, max_inference_s, max_input_bytes, max_weight_bytes:
            the :class:`~nnlat.limits.Limits` on untrusted models (:meth:`limits`).

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
    stale_after_s: float = Field(default=1800.0, gt=0)
    sweep_interval_s: float = Field(default=60.0, ge=0)
    upload_memory_bytes: int = Field(default=2 << 30, gt=0)
    upload_time_s: float = Field(default=120.0, gt=0)
    max_nodes: int = Field(default=DEFAULT_LIMITS.max_nodes, gt=0)
    max_graph_depth: int = Field(default=DEFAULT_LIMITS.max_graph_depth, gt=0)
    max_subgraphs: int = Field(default=DEFAULT_LIMITS.max_subgraphs, gt=0)
    max_tensor_elements: int = Field(default=DEFAULT_LIMITS.max_tensor_elements, gt=0)
    max_value_elements: int = Field(default=DEFAULT_LIMITS.max_value_elements, gt=0)
    max_inference_bytes: int = Field(default=DEFAULT_LIMITS.max_inference_bytes, gt=0)
    max_inference_s: float = Field(default=DEFAULT_LIMITS.max_inference_s, gt=0)
    max_input_bytes: int = Field(default=DEFAULT_LIMITS.max_input_bytes, gt=0)
    max_weight_bytes: int = Field(default=DEFAULT_LIMITS.max_weight_bytes, gt=0)

    def limits(self) -> Limits:
        """The resource limits on untrusted models these settings describe.

        Example:
            >>> Settings(max_nodes=500).limits().max_nodes
            500
        """
        return Limits(**{name: getattr(self, name) for name in Limits.__dataclass_fields__})
