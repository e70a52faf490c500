"""Saving a directory whole: written beside it, then swapped in, never half-written.

A predictor, an ensemble and a COBRA model each save as a directory of several files. A
reader (another process loading the shipped predictor, say) must never see some files
new and others old, nor a directory half-written by a save that failed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replaced_directory(directory: Path) -> Iterator[Path]:
    """A fresh sibling of ``directory`` to write into; it replaces ``directory`` at the end.

    If the block raises, the sibling is removed and ``directory`` is left as it was.

    Example:
        >>> import tempfile
        >>> target = Path(tempfile.mkdtemp()) / "saved"
        >>> with replaced_directory(target) as staging:
        ...     _ = (staging / "a.txt").write_text("new")
        >>> sorted(p.name for p in target.iterdir())
        ['a.txt']
    """
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        # mkdtemp makes the directory private (0700); what is saved is shared like its
        # parent directory is.
        staging.chmod(directory.parent.stat().st_mode & 0o777)
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if directory.exists():
        shutil.rmtree(directory)
    os.replace(staging, directory)
