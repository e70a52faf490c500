"""``nnlat worker``: a device host joins the farm for one platform.

The host is checked first: the platform's name must resolve to *this* host's hardware,
runtime and version (:func:`~nnlat.measure.runner.resolve_platform`), so a worker can
never answer for hardware it is not. The worker then consumes only that platform's
queue, one job at a time (concurrency 1, prefetch 1): a device is never shared by two
measurements.
"""

from __future__ import annotations

import os
import socket

from nnlat.measure.backends.registry import BackendFactory
from nnlat.measure.runner import resolve_platform
from nnlat.platform import Platform, UnknownPlatformError
from nnlat.registry import Registry
from nnlat.settings import Settings


def check_host(platform: str, backends: Registry[BackendFactory] | None = None) -> Platform:
    """The platform ``platform``, if this host is it and can run it.

    Raises:
        UnknownPlatformError: the name is another host's, or this host lacks its runtime.

    Example:
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> check_host("fake-fake1.0-fp32-t1", backend_registry({"fake": FakeBackend})).threads
        1
    """
    _, resolved, name = resolve_platform(platform, backends)
    if resolved is None:
        raise UnknownPlatformError(
            f"{name}: its runtime is not installed on this host; install it or pick another "
            "platform (`nnlat platforms`)"
        )
    return resolved


def worker_argv(
    platform: str, loglevel: str = "INFO", name: str | None = None, prefix: str = "nnlat"
) -> list[str]:
    """Arguments of ``celery worker`` for one platform's queue.

    Example:
        >>> worker_argv("cpu-ort1.0-fp32-t1", name="w1")[:3]
        ['worker', '--queues', 'nnlat.measure.cpu-ort1.0-fp32-t1']
    """
    from nnlat.farm.routing import queue_for

    name = name or f"{platform}.{os.getpid()}@{socket.gethostname()}"
    return [
        "worker",
        "--queues",
        queue_for(platform, prefix),
        "--concurrency",
        "1",
        "--prefetch-multiplier",
        "1",
        "--pool",
        "prefork",  # time limits need a child process to stop
        "--hostname",
        name,
        "--loglevel",
        loglevel,
        "--without-gossip",
        "--without-mingle",
    ]


def run_worker(
    settings: Settings, platform: str, loglevel: str = "INFO", name: str | None = None
) -> None:
    """Check the host, then serve ``platform``'s queue until stopped (blocks)."""
    from nnlat.farm.celery_app import make_celery

    check_host(platform)
    argv = worker_argv(platform, loglevel, name, settings.queue_prefix)
    make_celery(settings).worker_main(argv)
