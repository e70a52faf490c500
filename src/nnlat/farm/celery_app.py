"""The Celery application of the device farm, its one task, and the dispatcher using it.

Delivery guarantees come from three settings: a job is acknowledged only after its
result is stored (``task_acks_late``), a worker whose process dies has its job put back
(``task_reject_on_worker_lost``; a broker connection that drops does the same), and a
worker holds one job at a time (``worker_prefetch_multiplier=1``, concurrency 1). The
task is idempotent (:func:`~nnlat.farm.execute.execute_job`), so a job delivered twice is
measured at most once more and stored once. Results live in the nnlat database, not in a
Celery result backend.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from typing import Any

from celery import Celery, Task

from nnlat.farm.deadline import JobTimeout, deadline
from nnlat.farm.dispatch import FarmUnavailableError
from nnlat.farm.execute import execute_job
from nnlat.farm.routing import platform_of, queue_for
from nnlat.measure.types import MeasureSpec
from nnlat.settings import Settings
from nnlat.store import Job, Store
from nnlat.store.errors import StoreError

log = logging.getLogger(__name__)

TASK_NAME = "nnlat.measure_job"


@functools.cache
def _store(db_url: str | None) -> Store:
    # One store per worker process, opened on first use: after the pool forks, so no
    # connection is shared between processes.
    return Store.open(db_url)


def measure_job(task: Task, job_id: str) -> str:
    """The task: measure one job; retried with back-off while the database is away.

    One module-level function for every app (its settings come from the app), so
    several apps in one process never register different callables under one name.
    """
    settings: Settings = task.app.conf.nnlat_settings
    try:
        store = _store(settings.db_url)
        spec = MeasureSpec(max_time_s=settings.measure_max_time_s)
        with deadline(settings.job_timeout_s):
            return execute_job(store, job_id, spec, task.request.hostname or "worker").state
    except JobTimeout:
        store.jobs.fail(job_id, f"the measurement ran past {settings.job_timeout_s:g} s")
        return "failed"
    except StoreError as exc:
        retries = task.request.retries
        if retries >= settings.job_retries:
            log.error("job %s: giving up after %d retries: %s", job_id, retries, exc)
            # If the database is still away the job stays "running"; once it is older
            # than the job timeout, the next identical query re-opens it.
            with contextlib.suppress(StoreError):
                _store(settings.db_url).jobs.fail(job_id, f"gave up after {retries}: {exc}")
            raise
        raise task.retry(exc=exc, countdown=settings.retry_backoff_s * 2**retries) from exc


def make_celery(settings: Settings) -> Celery:
    """The Celery app for ``settings.broker_url``, with the ``nnlat.measure_job`` task.

    Example:
        >>> app = make_celery(Settings(broker_url="memory://"))
        >>> TASK_NAME in app.tasks, app.conf.task_acks_late
        (True, True)
    """
    if not settings.broker_url:
        raise FarmUnavailableError(
            "no broker configured: set NNLAT_BROKER_URL (amqp:// or redis://)"
        )
    app = Celery("nnlat", broker=settings.broker_url, set_as_current=False)
    transport: dict[str, Any] = {}
    if settings.broker_url.startswith(("redis://", "rediss://")):
        # Redis re-delivers an unacknowledged job only after this long: longer than any job.
        transport["visibility_timeout"] = int(2 * settings.job_timeout_s + 60)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        # The job's own deadline (farm/deadline.py) stops a hung measurement; Celery's hard
        # limit only backs it up, for a runtime stuck where no signal is handled.
        task_time_limit=settings.job_timeout_s + 60,
        task_default_queue=f"{settings.queue_prefix}.default",
        broker_connection_retry_on_startup=True,
        broker_transport_options=transport,
        worker_hijack_root_logger=False,
    )
    app.conf.nnlat_settings = settings
    app.task(name=TASK_NAME, bind=True, max_retries=settings.job_retries)(measure_job)
    return app


class CeleryDispatcher:
    """Sends each job to its platform's queue; asks the workers which queues they serve.

    Args:
        app: from :func:`make_celery`.
        prefix: the deployment's queue prefix.
        inspect_timeout_s: how long to wait for workers to answer an inspection.
        cache_s: how long an inspection's answer is reused.
    """

    def __init__(
        self,
        app: Celery,
        prefix: str = "nnlat",
        inspect_timeout_s: float = 1.0,
        cache_s: float = 5.0,
    ) -> None:
        self.app = app
        self.prefix = prefix
        self.inspect_timeout_s = inspect_timeout_s
        self.cache_s = cache_s
        self._live: tuple[float, dict[str, int]] | None = None
        self._guard = threading.Lock()

    def send(self, job: Job) -> None:
        """Publish ``job`` to ``<prefix>.measure.<platform>`` (durable, persistent).

        Raises:
            FarmUnavailableError: the broker did not take it.
        """
        try:
            self.app.send_task(
                TASK_NAME,
                args=[job.id],
                queue=queue_for(job.platform, self.prefix),
                retry=True,
                retry_policy={"max_retries": 3, "interval_start": 0.2, "interval_step": 0.5},
            )
        except Exception as exc:  # kombu raises several connection error types
            raise FarmUnavailableError(
                f"the broker is unreachable ({type(exc).__name__}: {exc}); job {job.id} "
                "was not queued — retry the query"
            ) from exc

    def live_platforms(self) -> dict[str, int]:
        """Platform → live workers consuming its queue (cached for ``cache_s``)."""
        with self._guard:
            if self._live is not None and time.monotonic() - self._live[0] < self.cache_s:
                return dict(self._live[1])
        try:
            answers = self.app.control.inspect(timeout=self.inspect_timeout_s).active_queues()
        except Exception:
            log.warning("could not inspect the workers", exc_info=True)
            answers = None
        live: dict[str, int] = {}
        for queues in (answers or {}).values():
            for queue in queues:
                if platform := platform_of(queue.get("name", ""), self.prefix):
                    live[platform] = live.get(platform, 0) + 1
        with self._guard:
            self._live = (time.monotonic(), live)
        return live

    def close(self) -> None:
        """Release the broker connections."""
        self.app.close()
