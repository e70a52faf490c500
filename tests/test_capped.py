"""call_capped bounds what an untrusted input may make a child allocate (issue 29), and an
isolated child, forked from the fork server, inherits no lock of this process's threads."""

from __future__ import annotations

import builtins
import functools
import importlib
import sys
import threading
import time
from pathlib import Path

import pytest

from nnlat.capped import CapExceededError, call_capped
from nnlat.forked import can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="caps need fork (Linux)")


def _allocate(count: int) -> int:
    """``count`` blocks of 100 kB: below malloc's mmap threshold, so they come from the heap."""
    return len([bytearray(100_000) for _ in range(count)])


def test_a_child_within_its_allowance_answers() -> None:
    assert call_capped(lambda: _allocate(100), max_bytes=128 << 20, max_seconds=60) == 100


def test_free_heap_inherited_from_the_parent_does_not_raise_the_cap() -> None:
    # 600 MB freed between live blocks stays mapped in this process: a child can reuse
    # it without growing its address space, so only the watch on its private memory
    # stops it at 128 MiB.
    freed, kept = [], []
    for _ in range(6000):
        freed.append(bytearray(100_000))
        kept.append(bytearray(200))
    del freed
    with pytest.raises(CapExceededError) as caught:
        call_capped(lambda: _allocate(3000), max_bytes=128 << 20, max_seconds=60)
    assert caught.value.cap == "memory"
    assert "134,217,728 bytes" in str(caught.value)
    del kept


def test_an_isolated_child_pickles_its_function_and_keeps_the_caps() -> None:
    assert (
        call_capped(
            functools.partial(_allocate, 100), max_bytes=128 << 20, max_seconds=60, isolated=True
        )
        == 100
    )
    with pytest.raises(CapExceededError) as caught:
        call_capped(
            functools.partial(_allocate, 3000), max_bytes=128 << 20, max_seconds=60, isolated=True
        )
    assert caught.value.cap == "memory"
    with pytest.raises(ValueError, match="invalid literal"):
        call_capped(functools.partial(int, "x"), max_bytes=128 << 20, max_seconds=60, isolated=True)


def test_a_lock_held_by_another_thread_hangs_a_child_forked_here_not_an_isolated_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A thread stays inside a module's import, holding that module's lock, the way a
    # server thread holds the stderr buffer or a C++ mutex while another thread forks.
    (tmp_path / "nnlat_slow_import.py").write_text(
        "import builtins\n"
        "held = getattr(builtins, 'nnlat_test_held', None)\n"
        "if held is not None:\n"
        "    held.wait(60)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    held = threading.Event()
    monkeypatch.setattr(builtins, "nnlat_test_held", held, raising=False)
    importer = threading.Thread(target=importlib.import_module, args=["nnlat_slow_import"])
    importer.start()
    try:
        while "nnlat_slow_import" not in sys.modules:
            time.sleep(0.01)
        imports = functools.partial(importlib.import_module, "nnlat_slow_import")
        with pytest.raises(CapExceededError) as caught:
            call_capped(imports, max_bytes=128 << 20, max_seconds=3)
        assert caught.value.cap == "time"
        module = call_capped(
            functools.partial(_imported_name, "nnlat_slow_import"),
            max_bytes=128 << 20,
            max_seconds=60,
            isolated=True,
        )
        assert module == "nnlat_slow_import"
    finally:
        held.set()
        importer.join()
        sys.modules.pop("nnlat_slow_import", None)


def _imported_name(name: str) -> str:
    return importlib.import_module(name).__name__
