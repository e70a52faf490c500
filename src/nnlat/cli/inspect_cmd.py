"""``nnlat inspect``: structure, cost and hash of a model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from nnlat.cli.checks import check_model_file
from nnlat.cli.config import configured_limits
from nnlat.cli.output import parse_input_shapes, print_json, spinner, stdout, user_errors
from nnlat.limits import DEFAULT_MAX_MODEL_BYTES

if TYPE_CHECKING:
    from nnlat.graph.summary import ModelSummary

InputShapeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--input-shape",
        "-i",
        help="Fix an input's shape: NAME=1x3x224x224, NAME= for a scalar (repeatable).",
    ),
]


def inspect_command(
    model: Annotated[Path, typer.Argument(help="An ONNX file.")],
    input_shape: InputShapeOption = None,
    batch_size: Annotated[
        int | None, typer.Option("--batch-size", "-b", help="Batch size (dim 0 of each input).")
    ] = None,
    max_model_bytes: Annotated[
        int,
        typer.Option(envvar="NNLAT_MAX_MODEL_BYTES", help="Refuse larger model files."),
    ] = DEFAULT_MAX_MODEL_BYTES,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show a model's op histogram, FLOPs, params, bytes, graph hash and kernels.

    Shapes ONNX inference cannot give (they follow values known only at run time) are
    observed by running the model once on generated inputs, and counted as such.
    """
    from nnlat.graph.load import load
    from nnlat.graph.summary import summarize
    from nnlat.measure.observed_shapes import observe_shapes

    shapes = parse_input_shapes(input_shape)
    with user_errors(subject=model.name):
        check_model_file(model)
        limits = configured_limits()
        with spinner(f"loading {model.name}", quiet=as_json):
            graph = load(
                model,
                input_shapes=shapes,
                batch_size=batch_size,
                max_model_bytes=max_model_bytes,
                limits=limits,
            )
            graph = observe_shapes(graph)
            summary = summarize(graph)
    if as_json:
        print_json({**summary.to_dict(), "observed_shapes": len(graph.observed)})
    else:
        _print_summary(model.name, summary, len(graph.observed))


def _print_summary(title: str, s: ModelSummary, observed: int) -> None:
    head = Table.grid(padding=(0, 2))
    head.add_row("graph hash", f"[bold]{s.graph_hash}[/] (scheme {s.hash_scheme})")
    for spec in s.inputs:
        shape = "?" if spec.shape is None else "x".join(str(d) for d in spec.shape)
        head.add_row(f"input {spec.name}", f"{spec.dtype} {shape}")
    head.add_row("FLOPs", f"{s.flops / 1e9:,.3f} G  ({s.macs / 1e9:,.3f} G MACs)")
    head.add_row("params", f"{s.params / 1e6:,.3f} M")
    head.add_row("bytes moved", f"{s.bytes / 1e6:,.1f} MB")
    head.add_row("nodes / kernels", f"{s.nodes} / {s.kernels}")
    if observed:
        seen = f"{observed} tensors (seen in one run; inference left them open)"
        head.add_row("observed shapes", seen)
    if s.unknown_ops:
        unknown = ", ".join(f"{op}×{n}" for op, n in s.unknown_ops.items())
        head.add_row("[yellow]unknown ops[/]", f"[yellow]{unknown} (counted as 0 FLOPs)[/]")
    if s.uncosted_ops:
        missing = ", ".join(f"{op}×{n}" for op, n in s.uncosted_ops.items())
        head.add_row("[yellow]no shapes[/]", f"[yellow]{missing} (not costed)[/]")
    stdout.print(f"[bold]{title}[/]")
    stdout.print(head)
    ops = Table("op", "count", title="operators", title_justify="left")
    for op, n in s.op_counts.items():
        ops.add_row(op, str(n))
    stdout.print(ops)
