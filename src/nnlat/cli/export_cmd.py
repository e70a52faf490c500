"""``nnlat export``: a user's own PyTorch module → an ONNX file nnlat can query.

``nnlat export net.py::Net -o net.onnx -i input=1x3x224x224`` imports ``net.py`` (it runs
the user's code, as ``python net.py`` would), builds ``Net(**init_args)`` and exports it
with the TorchScript exporter, which the zoo uses too; if that exporter cannot trace the
module, torch's newer exporter (``dynamo=True``, which needs ``onnxscript``) is tried.
The file written is nnlat's weight-free storage form: shapes are kept, values dropped
(nnlat fills weights with seeded random values when it measures).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nnlat.cli.output import parse_input_shapes, print_json, spinner, stdout, user_errors
from nnlat.errors import ExportError, NnlatError

if TYPE_CHECKING:
    import onnx
    import torch


class UserModuleError(NnlatError):
    """The ``FILE.py::NAME`` given to ``nnlat export`` cannot be imported or built."""


def export_command(
    source: Annotated[
        str,
        typer.Argument(
            help="FILE.py::NAME: a torch.nn.Module class (or a function returning a module)."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The ONNX file to write.")],
    input_shape: Annotated[
        list[str],
        typer.Option(
            "--input-shape",
            "-i",
            help="NAME=DIMS of each forward() argument, in order (repeatable), float32.",
        ),
    ],
    init_args: Annotated[
        str | None,
        typer.Option("--init-args", help='Arguments of NAME as JSON: {"k": v} keywords or [a, b].'),
    ] = None,
    opset: Annotated[int, typer.Option("--opset", min=17, help="ONNX opset version.")] = 17,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Export your own PyTorch module to ONNX (weight-free) for `nnlat query` / `predict`.

    This imports FILE.py, so it runs your code.
    """
    shapes = parse_input_shapes(input_shape)
    with user_errors():
        if out.suffix != ".onnx":
            raise UserModuleError(f"--out {out}: give a file name ending in .onnx")
        with spinner(f"exporting {source}", quiet=as_json):
            module = build_module(source, init_args)
            model = export_to_onnx(module, shapes, opset)
            from nnlat.graph.hashing import graph_key
            from nnlat.graph.load import load
            from nnlat.graph.onnx_io import serialize

            graph = load(model)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(serialize(_storage_model(graph.onnx_bytes)))
    payload = {
        "source": source,
        "out": str(out),
        "graph_hash": graph_key(graph).digest,
        "inputs": {name: list(dims) for name, dims in shapes.items()},
        "nodes": len(graph.nodes),
    }
    if as_json:
        print_json(payload)
        return
    stdout.print(
        f"wrote {out} ({len(graph.nodes)} nodes, graph hash {payload['graph_hash']}); "
        f"next: nnlat query {out}",
        highlight=False,
    )


def build_module(source: str, init_args: str | None) -> torch.nn.Module:
    """Import ``FILE.py::NAME`` and build the module it names.

    Raises:
        UserModuleError: the file, the name or the arguments do not give an ``nn.Module``.
    """
    import torch

    path_text, sep, name = source.rpartition("::")
    if not sep or not name or not path_text.endswith(".py"):
        raise UserModuleError(f"{source!r} is not FILE.py::NAME (e.g. net.py::Net)")
    path = Path(path_text)
    if not path.is_file():
        raise UserModuleError(f"{path}: no such file")
    try:
        args = json.loads(init_args) if init_args else {}
    except json.JSONDecodeError as exc:
        raise UserModuleError(f"--init-args is not JSON: {exc}") from None
    if not isinstance(args, dict | list):
        raise UserModuleError('--init-args must be a JSON object {"k": v} or a list [a, b]')
    spec = importlib.util.spec_from_file_location(f"_nnlat_user_{path.stem}", path)
    assert spec is not None and spec.loader is not None  # a .py file always has a loader
    code = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent.resolve()))  # so the file's own imports resolve
    try:
        spec.loader.exec_module(code)
    except Exception as exc:  # the user's code may raise anything
        raise UserModuleError(f"importing {path} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(str(path.parent.resolve()))
    factory = getattr(code, name, None)
    if factory is None:
        modules = (n for n, v in vars(code).items() if isinstance(v, type))
        found = sorted(n for n in modules if issubclass(getattr(code, n), torch.nn.Module))
        raise UserModuleError(
            f"{path} defines no {name!r}; its nn.Module classes: {', '.join(found) or '(none)'}"
        )
    if isinstance(factory, torch.nn.Module):
        return factory
    try:
        module = factory(*args) if isinstance(args, list) else factory(**args)
    except Exception as exc:
        raise UserModuleError(
            f"{name}({_shown(args)}) failed: {type(exc).__name__}: {exc} "
            "(pass its arguments with --init-args JSON)"
        ) from exc
    if not isinstance(module, torch.nn.Module):
        kind = type(module).__name__
        raise UserModuleError(f"{name}({_shown(args)}) is a {kind}, not an nn.Module")
    return module


def export_to_onnx(
    module: torch.nn.Module, shapes: dict[str, tuple[int, ...]], opset: int
) -> onnx.ModelProto:
    """The TorchScript exporter's model, or the dynamo exporter's where tracing fails.

    Raises:
        ExportError: both exporters failed (the message carries both reasons).
    """
    from nnlat.graph.torch_export import export_module

    if not shapes:
        raise UserModuleError("give the shape of each forward() argument: -i NAME=DIMS")
    try:
        return export_module(module, list(shapes.values()), opset=opset, input_names=list(shapes))
    except ExportError as first:
        try:
            return _dynamo_export(module, shapes, opset)
        except ExportError as second:
            raise ExportError(f"{first}; the dynamo exporter: {second}") from None


def _dynamo_export(
    module: torch.nn.Module, shapes: dict[str, tuple[int, ...]], opset: int
) -> onnx.ModelProto:
    import io
    import warnings

    import onnx
    import torch

    if importlib.util.find_spec("onnxscript") is None:
        raise ExportError("it needs onnxscript: pip install onnxscript")
    args = tuple(torch.zeros(*dims) for dims in shapes.values())
    buffer = io.BytesIO()
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            program = torch.onnx.export(
                module.eval(), args, dynamo=True, opset_version=opset, input_names=list(shapes)
            )
            assert program is not None  # dynamo=True without a file returns the program
            program.save(buffer)
    except Exception as exc:  # the exporter raises many unrelated types
        raise ExportError(f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from exc
    return onnx.load_from_string(buffer.getvalue())


def _storage_model(onnx_bytes: bytes) -> onnx.ModelProto:
    import onnx

    return onnx.load_from_string(onnx_bytes)


def _shown(args: dict[str, Any] | list[Any]) -> str:
    if isinstance(args, list):
        return ", ".join(map(repr, args))
    return ", ".join(f"{k}={v!r}" for k, v in args.items())
