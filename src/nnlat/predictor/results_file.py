"""Study results kept as JSON lines, one dataclass per line, so an interrupted study resumes.

Every protocol of :mod:`nnlat.predictor` (held-out families, BRP-NAS, few-shot) appends a
line as soon as a result exists and, when rerun, reads the file back and skips what is
there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

Result = TypeVar("Result")


def read_jsonl(path: Path, kind: Callable[..., Result]) -> list[Result]:
    """The results saved in ``path`` as ``kind(**line)`` (none if the file does not exist).

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass
        ... class Row:
        ...     x: int
        >>> read_jsonl(Path("/nonexistent.jsonl"), Row)
        []
    """
    if not path.exists():
        return []
    return [kind(**json.loads(line)) for line in path.read_text().splitlines() if line]


def record_result(
    results: list[Any],
    result: Any,
    path: Path | None,
    on_result: Callable[[Any], None] | None = None,
) -> None:
    """Append ``result`` (a dataclass) to ``results`` and to ``path``; then call ``on_result``."""
    results.append(result)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as handle:
            handle.write(json.dumps(asdict(result)) + "\n")
    if on_result is not None:
        on_result(result)
