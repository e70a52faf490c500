"""One call whose cost an untrusted input decides, in a child process capped in memory and time.

:func:`call_capped` computes ``function()`` in a child: its memory is capped (an
address-space limit and a watch on the pages it writes) and it is killed past its time,
so a model whose parsing or shape inference would take terabytes or hours cannot take
this process down. The result and any exception come back pickled.

The child is *forked*, from this process by default (the function is inherited, not
pickled), or, with ``isolated=True``, from a fork server: a single-threaded process
started once, which has imported the graph layer already. A threaded server needs the
second. A fork copies the memory of every thread but runs only the one that forked, so
any lock another thread holds at that moment — the buffer of ``sys.stderr`` while a log
line is written, a module being imported, a mutex inside a C++ library — stays held in
the child forever, and the child hangs until its time cap kills it: a correct upload
then fails, rarely and for no reason its sender could see. A fork server holds no such
locks; its children cost a pickled function on the way in.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import pickle
import resource
import select
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from nnlat.forked import RemoteTraceback, can_fork, portable_error

R = TypeVar("R")

# What the fork server imports once, so that its children parse a model without
# importing onnx and numpy again.
FORK_SERVER_PRELOAD = ["nnlat.graph"]

# How often the parent looks at a capped child's private memory: at the ~0.5 GB/s a
# parser allocates, a child overshoots its allowance by at most ~10 MB between looks.
_WATCH_INTERVAL_S = 0.02


class CapExceededError(Exception):
    """A :func:`call_capped` child ran out of its memory or time (``cap`` says which)."""

    def __init__(self, cap: str, message: str) -> None:
        super().__init__(message)
        self.cap = cap  # "memory" or "time"


def call_capped(
    function: Callable[[], R], *, max_bytes: int, max_seconds: float, isolated: bool = False
) -> R:
    """``function()``, computed in a forked child that may use ``max_bytes`` more memory.

    The child's address space is capped (``RLIMIT_AS``) at its size at the fork plus
    ``max_bytes``, and it is killed after ``max_seconds``. The address-space cap alone
    is not enough: free memory inside the parent's heap is inherited, mapped already,
    and reusable without growing the address space (a long-running server can hold
    gigabytes of it). So the child's *private* memory — every page it wrote since the
    fork — is also watched, and the child is killed once that passes ``max_bytes``.
    Where forking is not available (:func:`~nnlat.forked.can_fork`), ``function`` runs
    in-process, uncapped.

    Args:
        function: what to compute; its result must pickle.
        max_bytes: memory the child may allocate beyond what it inherits.
        max_seconds: wall time the child may take.
        isolated: fork the child from the fork server rather than from this process
            (for callers with other threads: a server); ``function`` must then pickle
            (a module-level function, or a :func:`functools.partial` of one).

    Returns:
        ``function()``.

    Raises:
        CapExceededError: the child ran out of memory (``cap == "memory"``: a
            ``MemoryError``, or killed) or time (``cap == "time"``).
        Exception: whatever ``function`` raised, with the child's traceback as cause.

    Example:
        >>> call_capped(lambda: sum(range(10)), max_bytes=1 << 28, max_seconds=30)
        45
        >>> call_capped(functools.partial(sum, range(10)), max_bytes=1 << 28, max_seconds=30,
        ...             isolated=True)
        45
        >>> call_capped(lambda: bytearray(1 << 31), max_bytes=1 << 28, max_seconds=30)
        Traceback (most recent call last):
        ...
        nnlat.capped.CapExceededError: ran out of its memory allowance of 268,435,456 bytes
    """
    if not can_fork():
        return function()
    if isolated:
        child = _from_fork_server(function, max_bytes)
    else:
        child = _forked_here(function, max_bytes)
    data = _collect(child, max_bytes, max_seconds)
    try:
        ok, value = pickle.loads(data)
    except Exception:  # killed (the kernel's OOM killer) before it could answer
        raise CapExceededError(
            "memory", f"ended without an answer (out of memory?) within {max_bytes:,} bytes"
        ) from None
    if ok:
        return value  # type: ignore[no-any-return]
    if value is None or isinstance(value[0], MemoryError):
        raise CapExceededError("memory", f"ran out of its memory allowance of {max_bytes:,} bytes")
    error, text = value
    error.__cause__ = RemoteTraceback(text)
    raise error


class _Child:
    """A running capped child: its pid, the pipe it answers on, and how to reap it."""

    def __init__(self, pid: int, reader: int, reap: Callable[[], object]) -> None:
        self.pid, self.reader, self.reap = pid, reader, reap


def _forked_here(function: Callable[[], Any], max_bytes: int) -> _Child:
    """Fork ``function``'s child from this process."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(reader)
        os._exit(_answer(function, writer, max_bytes))
    os.close(writer)
    return _Child(pid, reader, functools.partial(os.waitpid, pid, 0))


def _from_fork_server(function: Callable[[], Any], max_bytes: int) -> _Child:
    """Have the fork server fork ``function``'s child (``function`` is pickled)."""
    context = _fork_server()
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_fork_server_child, args=(function, writer, max_bytes))
    process.start()
    writer.close()  # the child holds the only writing end: its exit is the end of file
    descriptor = os.dup(reader.fileno())  # read raw, as from a pipe of our own
    reader.close()
    return _Child(process.pid, descriptor, process.join)  # type: ignore[arg-type]


@functools.cache
def _fork_server() -> Any:
    """The fork-server start method, its server importing the graph layer once."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(FORK_SERVER_PRELOAD)
    return context


def _fork_server_child(function: Callable[[], Any], writer: Any, max_bytes: int) -> None:
    """The child's entry under the fork server: answer, then exit without clean-up."""
    os._exit(_answer(function, os.dup(writer.fileno()), max_bytes))


def _answer(function: Callable[[], Any], writer: int, max_bytes: int) -> int:
    """In the child: cap memory, compute, write ``(ok, value)`` pickled; the exit code."""
    try:
        # A crash here (a native library aborting at its memory cap) is reported by
        # the parent; the child's own fault dump would only repeat it on stderr.
        import faulthandler

        faulthandler.disable()
        base = _address_space_bytes()
        if base is not None:
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            cap = base + max_bytes
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)  # only root may raise a hard limit
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        try:
            outcome: tuple[bool, Any] = (True, function())
        except BaseException as exc:
            outcome = (False, portable_error(exc) if isinstance(exc, Exception) else None)
        try:
            data = pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            data = pickle.dumps((False, portable_error(exc)))
        with os.fdopen(writer, "wb") as out:
            out.write(data)
    except BaseException:
        return 70
    return 0


def _collect(child: _Child, max_bytes: int, max_seconds: float) -> bytes:
    """Everything the child writes; it is killed past its time or memory, and reaped."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + max_seconds
    timed_out = over_memory = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if not select.select([child.reader], [], [], min(left, _WATCH_INTERVAL_S))[0]:
                if not chunks and (_private_bytes(child.pid) or 0) > max_bytes:
                    over_memory = True
                    break
                continue
            chunk = os.read(child.reader, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(child.reader)
        if timed_out or over_memory:
            os.kill(child.pid, signal.SIGKILL)
        child.reap()
    if timed_out:
        raise CapExceededError("time", f"ran past its time allowance of {max_seconds:g} s")
    if over_memory:
        raise CapExceededError("memory", f"ran out of its memory allowance of {max_bytes:,} bytes")
    return b"".join(chunks)


def _private_bytes(pid: int) -> int | None:
    """Memory process ``pid`` holds privately (Linux): the pages it wrote since a fork.

    Pages shared copy-on-write with the parent do not count until written, which is why
    this, unlike the address space or the resident size, sees a child reuse free heap it
    inherited. None where ``/proc`` does not tell (not Linux, or the child is gone).
    """
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    fields = ("Private_Clean:", "Private_Dirty:", "Swap:")
    kib = sum(int(line.split()[1]) for line in text.splitlines() if line.startswith(fields))
    return kib * 1024


def _address_space_bytes() -> int | None:
    """This process's virtual memory size (Linux), the base an ``RLIMIT_AS`` adds to."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")
