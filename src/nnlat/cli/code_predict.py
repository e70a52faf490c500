"""``nnlat predict path/to/model.py::ClassName``: latency from source code (COBRA).

The model argument names a Python file and a class in it; ``--input-shape`` gives the
``forward`` inputs and ``--init-args`` the constructor's keyword arguments as JSON. This
imports the file and runs the constructor, as ``python`` would, so it only ever runs
locally: the server is never sent code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from nnlat.cli.output import print_json, stderr, stdout


def is_code_reference(model: str) -> bool:
    """Whether a model argument names a class in a Python file (``file.py::Class``).

    Example:
        >>> is_code_reference("nets/resnet.py::ResNet"), is_code_reference("model.onnx")
        (True, False)
    """
    path, sep, name = model.partition("::")
    return bool(sep) and path.endswith(".py") and bool(name)


def parse_init_args(text: str | None) -> dict[str, Any] | None:
    """The constructor's keyword arguments from ``--init-args`` (a JSON object).

    Raises:
        typer.BadParameter: not a JSON object.

    Example:
        >>> parse_init_args('{"width": 32}')
        {'width': 32}
    """
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise typer.BadParameter(f"--init-args is not JSON: {error.msg}") from None
    if not isinstance(value, dict):
        raise typer.BadParameter("--init-args must be a JSON object of keyword arguments")
    return value


def predict_from_code(
    reference: str,
    shapes: dict[str, tuple[int, ...]],
    init_args: dict[str, Any] | None,
    platform: str | None,
    model_dir: Path | None,
    as_json: bool,
) -> None:
    """Predict and print the latency of the module ``reference`` names.

    Raises:
        typer.BadParameter: no input shapes, or a platform the COBRA model was not trained on.
        CodeError, CobraError: code the interpreter cannot follow, or no COBRA model.
    """
    from nnlat.predictor.code.api import predict_code

    if not shapes:
        raise typer.BadParameter(
            "code input needs the forward inputs' shapes: --input-shape x=1x3x224x224"
        )
    result = predict_code(
        reference, shapes, init_args, model=None if model_dir is None else str(model_dir)
    )
    if platform is not None and platform != result.platform:
        raise typer.BadParameter(
            f"-p {platform!r}: this COBRA model predicts {result.platform} only"
        )
    for note in result.notes:
        stderr.print(f"[yellow]warning:[/] {escape(note)}", highlight=False)
    if as_json:
        print_json({"code": reference, **result.model_dump()})
        return
    stdout.print(
        f"predicted on [bold]{result.platform}[/] from source ({result.layers} layer calls)",
        highlight=False,
    )
    stdout.print(f"by {result.model}", highlight=False)
    stdout.print(f"{escape(reference)}  [bold]{result.latency_ms:.3f} ms[/]", highlight=False)
