"""Bytes of heap the process holds, from glibc's allocator (``mallinfo2``).

Why a CPU runtime's memory is read here and not from the resident set: a small model
grows the resident set by 0 or one 4 KiB page (the pages were already mapped), so the
high-water mark says nothing about it. What the runtime *holds* for a prepared model
(packed weights, its arena, the delegate's workspaces) is what it asked the allocator
for; glibc counts it as bytes in use (``uordblks``, every arena) plus its large
``mmap``-ed blocks (``hblkhd``). On LiteRT the interpreter's own arena is not that
either: with XNNPACK most intermediate tensors live in the delegate's workspace
(``reports/perfsage/NOTES.md``).

Only glibc has ``mallinfo2`` (2.33 and later); elsewhere :func:`heap_in_use` is None and
the caller falls back to the resident set.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


class _MallInfo2(ctypes.Structure):
    # glibc's struct mallinfo2: ten size_t fields, in this order.
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


@functools.cache
def _mallinfo2() -> Callable[[], _MallInfo2] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        function = ctypes.CDLL(name).mallinfo2
    except (OSError, AttributeError):  # not glibc, or glibc older than 2.33
        return None
    function.restype = _MallInfo2
    function.argtypes = []
    return function


def heap_in_use() -> int | None:
    """Bytes the process has allocated through malloc and not freed; None without glibc.

    Example:
        >>> import numpy as np
        >>> before = heap_in_use()
        >>> block = np.ones(1 << 20, dtype=np.uint8)  # 1 MiB through malloc
        >>> before is None or heap_in_use() - before >= 1 << 20
        True
    """
    function = _mallinfo2()
    if function is None:
        return None
    info = function()
    return int(info.uordblks + info.hblkhd)
