"""Load a ``torch.nn.Module`` class from a Python source file and build an instance of it.

**This runs the user's code.** ``nnlat predict model.py::Net`` imports ``model.py`` (its
top level runs, as with ``python model.py``) and calls ``Net(**init_args)``, with the
rights of whoever runs the command: that is what the user asked for, and nothing else can
know what the module computes. Do not point it at code you would not run yourself, and
never offer it behind a server without authentication. The bounds below limit the size
of what is read, not what the code may do.

A target reads ``path/to/model.py::ClassName``. The file's folder is put first on
``sys.path`` while it is imported, so its sibling modules import as they would when run.
Every failure is a :class:`~nnlat.code.errors.CodeError` whose message starts with
``file:line``.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nnlat.code.errors import CodeError, one_line, user_line, where

MAX_SOURCE_BYTES = 2 * 1024 * 1024
_counter = itertools.count()


def parse_target(target: str) -> tuple[Path, str]:
    """Split ``path/to/model.py::ClassName`` into the path and the class name.

    Raises:
        CodeError: no ``::``, an empty part, or a class name that is not an identifier.

    Example:
        >>> parse_target("models/net.py::Net")
        (PosixPath('models/net.py'), 'Net')
    """
    path, sep, name = target.rpartition("::")
    if not sep or not path or not name.isidentifier():
        raise CodeError(
            f"{target!r}: expected path/to/model.py::ClassName (e.g. models/net.py::ResNet)"
        )
    return Path(path), name


def read_source(path: Path) -> str:
    """The text of ``path``, refused when missing, not UTF-8 or over ``MAX_SOURCE_BYTES``.

    Raises:
        CodeError: the file cannot be read.
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CodeError(f"{path}: cannot read the file ({exc.strerror})") from None
    if not path.is_file():
        raise CodeError(f"{path}: not a file")
    if size > MAX_SOURCE_BYTES:
        raise CodeError(f"{path}: {size} bytes is over the {MAX_SOURCE_BYTES}-byte limit")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CodeError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


@contextmanager
def _first_on_path(folder: Path | None) -> Iterator[None]:
    if folder is None:
        yield
        return
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        if str(folder) in sys.path:
            sys.path.remove(str(folder))


def load_namespace(text: str, filename: str, folder: Path | None = None) -> types.ModuleType:
    """Run ``text`` as a fresh module (registered in ``sys.modules`` under a unique name).

    Args:
        text: Python source.
        filename: the name tracebacks and errors show (the file's path).
        folder: put first on ``sys.path`` while the module runs (sibling imports).

    Returns:
        The module object.

    Raises:
        CodeError: a syntax error, or an exception raised by the module's top level.

    Example:
        >>> load_namespace("X = 2 + 3", "x.py").X
        5
    """
    try:
        code = compile(text, filename, "exec")
    except SyntaxError as exc:
        raise CodeError(
            f"{where(filename, exc.lineno)}: SyntaxError: {one_line(exc.msg)}"
        ) from None
    module = types.ModuleType(f"_nnlat_code_{next(_counter)}")
    module.__file__ = filename
    # Registered so that dataclasses, typing and pickling inside the file find their module.
    sys.modules[module.__name__] = module
    with _first_on_path(folder):
        try:
            exec(code, module.__dict__)
        except Exception as exc:
            line = user_line(exc, filename)
            raise CodeError(
                f"{where(filename, line)}: importing the file raised "
                f"{type(exc).__name__}: {one_line(str(exc))}"
            ) from None
    return module


def find_class(module: types.ModuleType, name: str, filename: str) -> type:
    """The ``torch.nn.Module`` subclass ``name`` of ``module``.

    Raises:
        CodeError: no such name (the message lists the module classes of the file), or
            not an ``nn.Module`` subclass.
    """
    import torch

    found = module.__dict__.get(name)
    if isinstance(found, type) and issubclass(found, torch.nn.Module):
        return found
    classes = sorted(
        k
        for k, v in module.__dict__.items()
        if isinstance(v, type)
        and issubclass(v, torch.nn.Module)
        and getattr(v, "__module__", "") == module.__name__
    )
    what = "is not a torch.nn.Module class" if found is not None else "is not defined"
    known = ", ".join(classes) or "none"
    raise CodeError(f"{filename}: {name!r} {what}; nn.Module classes in the file: {known}")


def _class_line(cls: type) -> int | None:
    import inspect

    try:
        return inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return None


def instantiate(
    cls: type, init_args: Mapping[str, Any], filename: str, *, device: str | None
) -> Any:
    """``cls(**init_args)`` built on ``device`` (``"meta"``: shapes only, no weights; None:
    the current default device).

    Raises:
        CodeError: the constructor raised (bad arguments, or an error in ``__init__``);
            the line is the one in the file where it happened, else the class's line.
    """
    import torch

    try:
        with torch.device(device) if device else contextlib.nullcontext():
            return cls(**dict(init_args))
    except Exception as exc:
        line = user_line(exc, filename) or _class_line(cls)
        args = one_line(repr(dict(init_args)), 120)
        raise CodeError(
            f"{where(filename, line)}: {cls.__name__}(**{args}) raised "
            f"{type(exc).__name__}: {one_line(str(exc))}; check --init-args"
        ) from None


def load_module(
    target: str, init_args: Mapping[str, Any] | None = None, *, device: str = "meta"
) -> tuple[Any, str]:
    """Import ``path.py::ClassName`` and build the module; **runs the file's code**.

    Args:
        target: ``path/to/model.py::ClassName``.
        init_args: keyword arguments of the class's constructor.
        device: where parameters are made; ``"meta"`` allocates none (shapes only).

    Returns:
        ``(module, filename)``, the module in eval mode.

    Raises:
        CodeError: the file, the class or the constructor call is bad.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.py"
        >>> _ = p.write_text("import torch\\nclass M(torch.nn.Linear): pass\\n")
        >>> load_module(f"{p}::M", {"in_features": 2, "out_features": 3})[0].weight.shape
        torch.Size([3, 2])
    """
    path, name = parse_target(target)
    filename = str(path)
    module = load_namespace(read_source(path), filename, path.resolve().parent)
    cls = find_class(module, name, filename)
    return instantiate(cls, init_args or {}, filename, device=device).eval(), filename


def load_source_module(
    text: str, class_name: str, filename: str, init_args: Mapping[str, Any] | None = None
) -> Any:
    """Build ``class_name`` from source ``text`` (a generated file), on the current device.

    Raises:
        CodeError: as :func:`load_module`.

    Example:
        >>> src = "import torch\\nclass M(torch.nn.Module):\\n    def forward(self, x): return x"
        >>> type(load_source_module(src, "M", "gen.py")).__name__
        'M'
    """
    module = load_namespace(text, filename)
    cls = find_class(module, class_name, filename)
    return instantiate(cls, init_args or {}, filename, device=None).eval()
