"""How commands talk to the user: JSON on stdout, messages on stderr, clean errors."""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from nnlat.errors import NnlatError, NnlatWarning

stdout = Console()
stderr = Console(stderr=True)


def progress_bar(transient: bool = False) -> Progress:
    """The progress display of every long command: on stderr, so stdout stays clean.

    Shows elapsed time and, once a task has a total and some progress, the time left.
    """
    return Progress(
        SpinnerColumn(),
        "[progress.description]{task.description}",
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=stderr,
        transient=transient,
    )


@contextmanager
def spinner(text: str, quiet: bool = False) -> Iterator[None]:
    """A spinner with elapsed seconds on stderr while a single long step runs.

    Nothing is shown when ``quiet`` or when stderr is not a terminal; it disappears
    when the step ends, so the result is the last thing on screen.
    """
    if quiet:
        yield
        return
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
    ) as progress:
        progress.add_task(text, total=None)
        yield


def comma_list(values: str | list[str] | None) -> list[str]:
    """A comma-separated option (or a repeated one) as its items: ``"a, b"`` → ``[a, b]``.

    Example:
        >>> comma_list("nnlp, xgboost,"), comma_list(["a,b", "c"]), comma_list(None)
        (['nnlp', 'xgboost'], ['a', 'b', 'c'], [])
    """
    texts = [values] if isinstance(values, str) else values or []
    return [item.strip() for text in texts for item in text.split(",") if item.strip()]


def whole_numbers(
    values: str | list[str] | None, option: str, *, minimum: int = 0, distinct: bool = False
) -> list[int]:
    """A comma-separated option of whole numbers from ``minimum`` (distinct ones if asked);
    anything else is a usage error naming the option.

    Example:
        >>> whole_numbers("1, 4,16", "--batch-sizes", minimum=1)
        [1, 4, 16]
        >>> try:
        ...     whole_numbers("0,0", "--seeds", distinct=True)
        ... except typer.BadParameter as error:
        ...     print(error)
        --seeds '0,0': expected distinct whole numbers from 0
    """
    items = comma_list(values)
    numbers = [int(v) for v in items if v.isdigit()]
    if (
        not items
        or len(numbers) < len(items)
        or min(numbers) < minimum
        or (distinct and len(set(numbers)) < len(numbers))
    ):
        kind = "distinct whole numbers" if distinct else "whole numbers"
        raise typer.BadParameter(f"{option} {','.join(items)!r}: expected {kind} from {minimum}")
    return numbers


def print_json(payload: Any) -> None:
    """Print one JSON object on stdout (nothing else is printed to stdout with --json)."""
    sys.stdout.write(json.dumps(payload, indent=2, default=_jsonable) + "\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


@contextmanager
def user_errors(subject: str | None = None) -> Iterator[None]:
    """Turn NnlatError into a one-line message and exit code 2; show nnlat warnings.

    Args:
        subject: what the command is about (a model file's name): messages that do not
            name it already are prefixed with it, so a warning among many says whose it is.
    """

    def about(message: object) -> str:
        text = str(message)
        return text if not subject or subject in text else f"{subject}: {text}"

    def show(message: Warning | str, category: type[Warning], *args: Any, **kw: Any) -> None:
        if issubclass(category, NnlatWarning):
            stderr.print(
                f"[yellow]warning:[/] {_escape(about(message))}",
                highlight=False,
                soft_wrap=_one_line(),
            )

    previous: Callable[..., None] = warnings.showwarning
    warnings.showwarning = show
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", NnlatWarning)
            warnings.showwarning = show
            yield
    except NnlatError as exc:
        stderr.print(
            f"[red]error:[/] {_escape(about(_with_notes(exc)))}",
            highlight=False,
            soft_wrap=_one_line(),
        )
        raise typer.Exit(2) from None
    finally:
        warnings.showwarning = previous


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def parse_input_shapes(values: list[str] | None) -> dict[str, tuple[int, ...]]:
    """Parse ``NAME=1x3x224x224`` options into a dict; ``NAME=`` (no dims) is a scalar.

    Example:
        >>> parse_input_shapes(["x=1x3x8x8", "sr="])
        {'x': (1, 3, 8, 8), 'sr': ()}

    Raises:
        typer.BadParameter: a value is not NAME=DIMS with positive integer dims.
    """
    shapes: dict[str, tuple[int, ...]] = {}
    for value in values or []:
        name, sep, dims = value.rpartition("=")
        try:
            # Nothing after "=" is a 0-d input (an audio model's sample rate, say).
            shape = tuple(int(d) for d in dims.lower().split("x")) if dims.strip() else ()
        except ValueError:
            shape = None
        if not sep or not name or shape is None:
            raise typer.BadParameter(
                f"{value!r} is not NAME=DIMS (e.g. input=1x3x224x224, or sr= for a scalar)",
                param_hint="--input-shape",
            )
        shapes[name] = shape
    return shapes


def _with_notes(exc: BaseException) -> str:
    """The error's message and its notes (e.g. which of many models failed), on one line.

    A library's error quoted in ours may hold newlines: they become spaces.
    """
    return " ".join("; ".join([str(exc), *getattr(exc, "__notes__", [])]).split())


def _one_line() -> bool:
    """Messages stay one line for logs and pipes; a terminal gets them wrapped at words."""
    return not stderr.is_terminal
