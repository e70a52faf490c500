"""A time limit on a job that a measurement cannot swallow.

The measurement protocol turns every ``Exception`` a runtime raises into a stored
"failed" result — right for a model a runtime cannot run, wrong for a timeout, which says
nothing about the model. Celery's soft time limit raises an ``Exception``, so it would be
stored as a failure of the model. :func:`deadline` raises :class:`JobTimeout`, a
``BaseException``, from a timer signal instead: it passes through those handlers and
the job fails without storing anything. Signals reach only the main thread, so the limit
applies in worker processes (Celery's pool), not in the server's local threads.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


class JobTimeout(BaseException):  # not an error of the model: it must not be caught
    """The job ran past its time limit."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`JobTimeout` in this thread if the block runs longer than ``seconds``.

    A no-op outside the main thread.

    Example:
        >>> with deadline(5.0):  # finishes in time: nothing happens
        ...     total = sum(range(10))
        >>> total
        45
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise JobTimeout(f"ran past {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
