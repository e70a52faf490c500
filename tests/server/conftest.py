"""Fixtures of the server tests: an in-process server (see ``server_helpers``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import Server, make_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """An open-reads server with a small upload limit."""
    yield from make_server(tmp_path, max_upload_bytes=200_000)
