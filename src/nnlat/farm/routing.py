"""One Celery queue per platform: a job goes to the queue of the platform it names.

Queues are named ``<prefix>.measure.<platform>``; the prefix (``NNLAT_QUEUE_PREFIX``,
default ``nnlat``) lets several deployments share one broker.

Example:
    >>> queue_for("epyc-ort1.31-fp32-t1")
    'nnlat.measure.epyc-ort1.31-fp32-t1'
    >>> platform_of("nnlat.measure.epyc-ort1.31-fp32-t1")
    'epyc-ort1.31-fp32-t1'
    >>> platform_of("staging.measure.epyc-ort1.31-fp32-t1") is None
    True
"""

from __future__ import annotations


def queue_for(platform: str, prefix: str = "nnlat") -> str:
    """The queue whose workers measure on ``platform``."""
    return f"{prefix}.measure.{platform}"


def platform_of(queue: str, prefix: str = "nnlat") -> str | None:
    """The platform a queue serves, or None for a queue that is not this prefix's."""
    head = f"{prefix}.measure."
    return queue[len(head) :] if queue.startswith(head) else None
