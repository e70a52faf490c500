"""The ``nnlat`` application: one sub-command module each.

Modules here import only typer, rich and light parts of nnlat at the top; what a
command needs (torch, the database, runtimes) is imported inside it. The ``eval``
group needs torch and PyTorch Geometric at import, so it is registered lazily.
"""

from __future__ import annotations

import typer

from nnlat.cli import dataset_cmd, db_cmd, export_cmd, server_cmd, zoo_cmd
from nnlat.cli.inspect_cmd import inspect_command
from nnlat.cli.lazy import LazyCommand, LazyGroup
from nnlat.cli.onboard_cmd import onboard_command
from nnlat.cli.predict_cmd import predict_command, train_command
from nnlat.cli.query_cmd import platforms_command, query_command


class _Group(LazyGroup):
    lazy = {  # noqa: RUF012
        "eval": LazyCommand(
            "nnlat.cli.eval_cmd:app", "Evaluate predictors on the database; write reports."
        )
    }


app = typer.Typer(
    name="nnlat",
    cls=_Group,
    help="Query and predict the latency of neural networks on real hardware.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.command("inspect")(inspect_command)
app.command("query")(query_command)
app.command("platforms")(platforms_command)
app.command("predict")(predict_command)
app.command("train")(train_command)
app.command("onboard")(onboard_command)
app.command("export")(export_cmd.export_command)
app.command("serve")(server_cmd.serve_command)
app.command("worker")(server_cmd.worker_command)
app.add_typer(server_cmd.token_app, name="token")
app.add_typer(zoo_cmd.app, name="zoo")
app.add_typer(db_cmd.app, name="db")
app.add_typer(dataset_cmd.app, name="dataset")


def main() -> None:
    """Console-script entry point."""
    app()
