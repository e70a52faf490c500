"""call_capped bounds what an untrusted input may make a child allocate (issue 29)."""

from __future__ import annotations

import pytest

from nnlat.forked import CapExceededError, call_capped, can_fork

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
