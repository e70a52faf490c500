"""``--server`` and ``--token``: point a command at an nnlat server instead of this host."""

from __future__ import annotations

from typing import Annotated

import typer

from nnlat.client import Client

ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server", envvar="NNLAT_SERVER", help="An nnlat server URL (default: work locally)."
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option("--token", envvar="NNLAT_TOKEN", help="API token for --server."),
]


def connect(server: str, token: str | None) -> Client:
    """A client of ``server``; the caller closes it."""
    return Client(server, token)
