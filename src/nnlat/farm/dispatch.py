"""How a job reaches a device: a Celery queue, or a thread of this process.

Both dispatchers have the same small interface, so the query service never asks which
one it has. :class:`LocalDispatcher` is the embedded default (no broker configured): it
measures in this process on this host's platforms, one thread per platform, so a device
is never shared by two measurements. :class:`~nnlat.farm.celery_app.CeleryDispatcher`
sends the job to its platform's queue.
"""

from __future__ import annotations

import logging
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from nnlat.errors import NnlatError
from nnlat.farm.execute import execute_job
from nnlat.measure.backends.registry import BackendFactory
from nnlat.measure.runner import available_platforms
from nnlat.measure.types import MeasureSpec
from nnlat.registry import Registry
from nnlat.store import Job, Store

log = logging.getLogger(__name__)


class FarmUnavailableError(NnlatError):
    """The broker cannot be reached (or none is configured): a job could not be queued."""


class Dispatcher(Protocol):
    """Sends jobs to whatever measures them."""

    def send(self, job: Job) -> None:
        """Have ``job`` measured (returns at once)."""

    def live_platforms(self) -> dict[str, int]:
        """Platform name → number of live workers serving it."""

    def close(self) -> None:
        """Stop sending; wait for work in flight where this process does it."""


class LocalDispatcher:
    """Measures jobs in this process, one thread per platform.

    Args:
        store: the database holding jobs and models.
        spec: the measurement protocol.
        backends: the backend registry; by default the real backends.

    Example:
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> local = LocalDispatcher(Store.open("sqlite://"), MeasureSpec(),
        ...                         backends=backend_registry({"fake": FakeBackend}))
        >>> "fake-fake1.0-fp32-t1" in local.live_platforms()
        True
        >>> local.close()
    """

    def __init__(
        self,
        store: Store,
        spec: MeasureSpec,
        *,
        backends: Registry[BackendFactory] | None = None,
    ) -> None:
        self.store = store
        self.spec = spec
        self.backends = backends
        self._guard = threading.Lock()
        self._executors: dict[str, ThreadPoolExecutor] = {}
        self._worker = f"local@{socket.gethostname()}"

    def _executor(self, platform: str) -> ThreadPoolExecutor:
        with self._guard:
            if platform not in self._executors:
                self._executors[platform] = ThreadPoolExecutor(1, thread_name_prefix=platform)
            return self._executors[platform]

    def send(self, job: Job) -> None:
        """Queue ``job`` on its platform's thread."""
        self._executor(job.platform).submit(self._run, job.id)

    def _run(self, job_id: str) -> None:
        try:
            execute_job(self.store, job_id, self.spec, self._worker, backends=self.backends)
        except Exception as exc:  # a thread has no caller to raise to: record it on the job
            log.exception("job %s failed", job_id)
            try:
                self.store.jobs.fail(job_id, f"{type(exc).__name__}: {exc}")
            except Exception:
                log.exception("could not mark job %s failed", job_id)

    def live_platforms(self) -> dict[str, int]:
        """This host's platforms, one worker (thread) each."""
        return {p.name: 1 for p in available_platforms(self.backends)}

    def close(self) -> None:
        """Wait for the measurements in flight, then stop the threads."""
        with self._guard:
            executors, self._executors = list(self._executors.values()), {}
        for executor in executors:
            executor.shutdown(wait=True)
