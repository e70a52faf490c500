"""What every study returns, and how its rows are kept between runs.

A study's ``run(config, records)`` returns :class:`Results`: its config and one row (a
frozen dataclass) per result. Rows are kept as JSON lines, one per line, appended as soon
as a result exists, so a stopped study resumes where it stopped and a report can be
rebuilt without training (``--report-only``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

Config = TypeVar("Config")
Row = TypeVar("Row")


@dataclass(frozen=True)
class Results(Generic[Config, Row]):
    """A study's results.

    Attributes:
        config: what was asked (the study's frozen config).
        rows: one frozen dataclass per result, in the study's order.
        inputs: how many records the study read (0 when rebuilt from a results file).
    """

    config: Config
    rows: Sequence[Row]
    inputs: int = 0


def read_jsonl(path: Path, kind: Callable[..., Row]) -> list[Row]:
    """The rows saved in ``path`` as ``kind(**line)`` (none if the file does not exist).

    Example:
        >>> @dataclass
        ... class Line:
        ...     x: int
        >>> read_jsonl(Path("/nonexistent.jsonl"), Line)
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
