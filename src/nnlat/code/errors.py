"""The one error of the code interpreter: code it cannot load or follow, named by its line.

:class:`CodeError` derives from :class:`~nnlat.errors.NnlatError`, so the CLI prints its
message (one line, starting ``path:line:`` where a line is known) and exits non-zero.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from nnlat.errors import NnlatError


class CodeError(NnlatError):
    """A source file the interpreter cannot load, instantiate, trace or run.

    The message is one line: ``file:line: what went wrong; what to do``.
    """


def user_line(exc: BaseException, source: Path | str) -> int | None:
    """The last line of ``source`` in ``exc``'s traceback (the user's line), or None.

    Args:
        exc: an exception raised while running the user's code.
        source: the user's file (as passed to ``compile``).

    Example:
        >>> try:
        ...     exec(compile("x = 1\\nraise ValueError", "m.py", "exec"))
        ... except ValueError as e:
        ...     user_line(e, "m.py")
        2
    """
    name = str(source)
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == name:
            found = frame.lineno
    if found is None and isinstance(exc, SyntaxError) and exc.filename == name:
        found = exc.lineno
    return found


def where(source: Path | str, line: int | None) -> str:
    """``"file:line"`` (or ``"file"`` when the line is unknown).

    Example:
        >>> where("m.py", 3), where("m.py", None)
        ('m.py:3', 'm.py')
    """
    return f"{source}:{line}" if line else str(source)


def one_line(text: str, limit: int = 400) -> str:
    """``text`` on one line, cut to ``limit`` characters.

    Example:
        >>> one_line("a\\n  b")
        'a b'
    """
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
