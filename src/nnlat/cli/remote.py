"""``--server`` and ``--token``: point a command at an nnlat server instead of this host.

Commands given ``--server`` talk to it through :class:`nnlat.client.Client`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
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


def client_of(server: str, token: str | None) -> Client:
    """A client of ``server`` (imported here: httpx is the ``server`` extra's)."""
    from nnlat.client import Client

    return Client(server, token)
