"""Zoo tests run torch single-threaded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """Batch-1 forwards of small nets gain nothing from more threads, and on a busy
    2-core machine spinning intra-op threads make these tests several times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
