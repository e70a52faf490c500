"""A function over many items, shared with forked child processes, results in order.

:func:`iter_forked` (and :func:`map_forked`, its list) runs ``function(item)`` for every
item. The children are *forked* once per call, so they inherit the function and the
items from this process's memory and read them by index: nothing is pickled on the way
in (spawn or forkserver children would re-import torch, seconds each, and need every
item pickled); only results and warnings come back pickled, in a file per chunk (in
memory, ``/dev/shm``, where there is one) that a pipe, drained by a thread, announces —
or through the pipe itself where that place has no room.
The items are cut into chunks that this process and ``workers - 1`` children claim one
at a time from a shared counter; this process computes a chunk whenever the next result
in order is not there yet, so between results, the caller's own work (a network over
the first results, say) overlaps the children's.

Below ``min_items`` items, with one worker, inside a child already, or where forking is
not available or not safe (Windows, macOS), everything runs in-process. An exception
raised for an item propagates with its own type, the first in item order (no chunk
after a failing one is started), with a note (:pep:`678`) naming the item; from a
child, its traceback follows as the cause. Warnings raised in a child are issued again
here, in item order. Children run torch, if it is imported, on one thread. As with any
``fork``, a lock another thread of this process holds at that moment stays held in the
children: call these from a process whose other threads hold none (the usual case).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import queue
import shutil
import sys
import tempfile
import threading
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

CHUNKS_PER_WORKER = 8
"""Chunks per worker: small enough to balance uneven items, big enough to batch pickling."""

# The work: (function, items, what an item is called), inherited by forked children.
_Work = tuple[Callable[[Any], Any], Sequence[Any], str]
# A warning recorded in a child: message, category, filename, line number.
_Caught = tuple[Warning | str, type[Warning], str, int]


def default_workers() -> int:
    """The number of cores this process may run on (its CPU affinity where known).

    Example:
        >>> default_workers() >= 1
        True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether this process may start forked children.

    Not on Windows (no ``fork``) nor macOS (forking after its system frameworks are
    loaded, as torch does, can crash the child), and not from a child itself.
    """
    forkable = "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"
    return forkable and not multiprocessing.current_process().daemon


def map_forked(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int | None = None,
    *,
    label: str = "item",
    min_items: int = 1,
) -> list[R]:
    """``[function(item) for item in items]``, computed as :func:`iter_forked` does.

    Example:
        >>> map_forked(len, ["a", "bc", "def"], workers=2)
        [1, 2, 3]
    """
    return list(iter_forked(function, items, workers, label=label, min_items=min_items))


def iter_forked(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int | None = None,
    *,
    label: str = "item",
    min_items: int = 1,
) -> Iterator[R]:
    """``function(item)`` for every item, in order, with forked children helping.

    The children start at the first ``next`` and are gone once the iterator is
    exhausted or closed (garbage-collected, or left by an exception).

    Args:
        function: any callable (inherited by the children, not pickled); its results
            must pickle.
        items: any objects (inherited by the children, not pickled).
        workers: processes at work, this one included (default: :func:`default_workers`).
        label: what an item is called in error notes (``graph``, ``model``).
        min_items: below this many items, run in-process.

    Raises:
        Exception: the exception of the first failing item (in item order), with a note
            naming it.
        RuntimeError: a child died without reporting (killed, out of memory).

    Example:
        >>> list(iter_forked(str.upper, ["a", "b", "c"], workers=2))
        ['A', 'B', 'C']
    """
    work: _Work = (function, items, label)
    workers = processes(len(items), workers, min_items)
    if workers == 1:
        return (_apply(work, index) for index in range(len(items)))
    return _Forked(work, workers).results()


def processes(items: int, workers: int | None = None, min_items: int = 1) -> int:
    """How many processes :func:`iter_forked` would put to work (1: in-process only).

    Example:
        >>> processes(10, workers=4), processes(2, workers=4), processes(10, 4, min_items=64)
        (4, 2, 1)
    """
    workers = min(default_workers() if workers is None else workers, items)
    return 1 if workers <= 1 or items < min_items or not can_fork() else workers


class _Forked:
    """One forked map: the shared chunk counter, the children, their messages."""

    def __init__(self, work: _Work, workers: int) -> None:
        self.work, self.workers = work, workers
        items = len(work[1])
        self.size = -(-items // (workers * CHUNKS_PER_WORKER))  # items per chunk
        self.chunks = -(-items // self.size)
        self.context = multiprocessing.get_context("fork")
        self.lock = self.context.Lock()
        self.next = self.context.RawValue("q", 0)  # the next chunk to claim
        self.limit = self.context.RawValue("q", self.chunks)  # no claims from here on

    def claim(self) -> int | None:
        """The next chunk to compute, or None when all are taken (or one failed)."""
        with self.lock:
            chunk = self.next.value
            if chunk >= self.limit.value:
                return None
            self.next.value = chunk + 1
            return chunk

    def compute(self, chunk: int) -> list[Any]:
        """The results of one chunk; on a failure, no later chunk is claimed."""
        start = chunk * self.size
        try:
            stop = min(start + self.size, len(self.work[1]))
            return [_apply(self.work, index) for index in range(start, stop)]
        except Exception:
            with self.lock:
                self.limit.value = min(self.limit.value, chunk)
            raise

    def child(self, pipe: Connection) -> None:
        """A child's loop: claim, compute, send ``(chunk, results, error, warnings)``.

        ``error`` is None or ``(exception, its traceback as text)``.
        """
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
        with pipe:
            while (chunk := self.claim()) is not None:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")  # the parent's filters decide, later
                    try:
                        results, error = self.compute(chunk), None
                    except Exception as exc:
                        results, error = None, portable_error(exc)
                found = [(w.message, w.category, w.filename, w.lineno) for w in caught]
                try:
                    message = pickle.dumps((chunk, results, error, found), pickle.HIGHEST_PROTOCOL)
                except Exception as exc:  # a result or warning that does not pickle
                    error = portable_error(exc)
                    message = pickle.dumps((chunk, None, error, []))
                # Results go through a file, the pipe only says which: a pipe holds 64
                # KiB, and the thread draining it here waits for the interpreter lock at
                # every read while this process computes, so a child sending megabytes
                # through it stood blocked for most of a call. Where the spool is full
                # (a container's small /dev/shm), the pipe carries the results.
                path = self.spool / f"{chunk}.pickle"
                try:
                    path.write_bytes(message)
                    pipe.send_bytes(_IN_FILE + chunk.to_bytes(8, "little"))
                except OSError:
                    path.unlink(missing_ok=True)
                    pipe.send_bytes(_IN_MESSAGE + message)
                if error is not None:
                    return

    def results(self) -> Iterator[Any]:
        """Fork the children; yield results in order, computing chunks here when idle."""
        pipes, children = [], []
        inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.spool = Path(tempfile.mkdtemp(prefix="nnlat-forked-", dir=_spool_parent()))
        gc.freeze()  # collections must not touch (so copy) every inherited object
        try:
            for _ in range(self.workers - 1):  # every fork before this process's thread
                reader, writer = self.context.Pipe(duplex=False)
                child = self.context.Process(target=self.child, args=(writer,), daemon=True)
                child.start()
                writer.close()
                pipes.append(reader)
                children.append(child)
            threading.Thread(target=_drain, args=(pipes, inbox), daemon=True).start()
            yield from self._in_order(inbox, children)
        finally:
            for child in children:
                child.terminate()  # a no-op for children that are done
                child.join()
            gc.unfreeze()
            shutil.rmtree(self.spool, ignore_errors=True)

    def _in_order(
        self,
        inbox: queue.SimpleQueue[bytes | None],
        children: list[multiprocessing.process.BaseProcess],
    ) -> Iterator[Any]:
        ready: dict[int, tuple[list[Any] | None, Any, list[_Caught]]] = {}
        drained = False
        for wanted in range(self.chunks):
            while wanted not in ready:
                message = _next_message(inbox)
                if message is _NOTHING:
                    chunk = self.claim()
                    if chunk is not None:  # nothing has come: compute a chunk here
                        ready[chunk] = self._here(chunk)
                        continue
                    if drained:
                        codes = [child.exitcode for child in children]
                        raise RuntimeError(
                            f"a worker process ended without returning {self.work[2]}s "
                            f"{wanted * self.size} on (exit codes {codes}): killed?"
                        )
                    message = inbox.get()  # everything is claimed: wait for a child
                if message is None:
                    drained = True
                    continue
                payload = self._payload(message)  # type: ignore[arg-type]
                chunk, results, error, caught = pickle.loads(payload)
                ready[chunk] = (results, error, caught)
            results, error, caught = ready.pop(wanted)
            _reissue(caught)
            if error is not None:
                if isinstance(error, tuple):  # from a child: (exception, traceback text)
                    error[0].__cause__ = RemoteTraceback(error[1])
                    raise error[0]
                raise error
            yield from results  # type: ignore[misc]

    def _payload(self, message: bytes) -> bytes:
        """The pickled results a child's message announces (in a file) or holds."""
        if message[:1] == _IN_MESSAGE:
            return message[1:]
        path = self.spool / f"{int.from_bytes(message[1:], 'little')}.pickle"
        payload = path.read_bytes()
        path.unlink()
        return payload

    def _here(self, chunk: int) -> tuple[list[Any] | None, Any, list[_Caught]]:
        """Compute ``chunk`` in this process (its warnings are issued as they come)."""
        try:
            return self.compute(chunk), None, []
        except Exception as exc:
            return None, exc, []


_NOTHING = object()
# A child's message starts with where its results are: in the spool file it names, or
# in the rest of the message.
_IN_FILE, _IN_MESSAGE = b"F", b"M"


def _spool_parent() -> str | None:
    """Where children's result files go: memory (``/dev/shm``) where there is such a place."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _next_message(inbox: queue.SimpleQueue[bytes | None]) -> object:
    """The next message if one has come, else ``_NOTHING``."""
    try:
        return inbox.get_nowait()
    except queue.Empty:
        return _NOTHING


def _apply(work: _Work, index: int) -> Any:
    """``function(items[index])``; a failure gets a note naming the item."""
    function, items, label = work
    try:
        return function(items[index])
    except Exception as exc:
        exc.add_note(f"while processing {label} {index} of {len(items)}: {_describe(items[index])}")
        raise


def _drain(pipes: list[Connection], inbox: queue.SimpleQueue[bytes | None]) -> None:
    """Put every message from ``pipes`` into ``inbox``, then None once all are closed."""
    open_pipes = list(pipes)
    while open_pipes:
        for pipe in wait(open_pipes):
            try:
                inbox.put(pipe.recv_bytes())  # type: ignore[union-attr]
            except EOFError:
                open_pipes.remove(pipe)  # type: ignore[arg-type]
                pipe.close()  # type: ignore[union-attr]
    inbox.put(None)


def _reissue(caught: list[_Caught]) -> None:
    """Issue warnings recorded in a child again, under this process's filters."""
    registry = vars(sys.modules[__name__]).setdefault("__warningregistry__", {})
    for message, category, filename, lineno in caught:
        warnings.warn_explicit(message, category, filename, lineno, registry=registry)


class RemoteTraceback(Exception):  # noqa: N818 (multiprocessing.pool's name)
    """The traceback of an exception raised in a child (set as its ``__cause__``)."""

    def __str__(self) -> str:
        return str(self.args[0])


def portable_error(exc: Exception) -> tuple[Exception, str]:
    """``exc`` if it pickles (else a RuntimeError with its text), and its traceback text."""
    text = "".join(traceback.format_exception(exc))
    try:
        pickle.loads(pickle.dumps(exc))  # some exceptions pickle but fail to unpickle
    except Exception:
        notes = "".join(f"\n{note}" for note in getattr(exc, "__notes__", ()))
        exc = RuntimeError(f"{type(exc).__name__}: {exc}{notes}")
    return exc, f'\n"""\n{text}"""'


def _describe(item: object) -> str:
    """A short description of an item for error notes (a path, or a type and size)."""
    if isinstance(item, str | os.PathLike):
        return os.fspath(item)
    if isinstance(item, bytes | bytearray):
        return f"{len(item):,} bytes"
    return type(item).__name__
