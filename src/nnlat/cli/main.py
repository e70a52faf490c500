"""The ``nnlat`` application: one sub-command module each."""

from __future__ import annotations

import typer

from nnlat.cli import zoo_cmd
from nnlat.cli.inspect_cmd import inspect_command

app = typer.Typer(
    name="nnlat",
    help="Query and predict the latency of neural networks on real hardware.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.command("inspect")(inspect_command)
app.add_typer(zoo_cmd.app, name="zoo")


def main() -> None:
    """Console-script entry point."""
    app()
