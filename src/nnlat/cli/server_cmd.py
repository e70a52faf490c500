"""``nnlat serve``, ``nnlat worker`` and ``nnlat token``: run the service and its farm."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.output import print_json, stderr, stdout, user_errors

if TYPE_CHECKING:
    from nnlat.settings import Settings
BrokerOption = Annotated[
    str | None,
    typer.Option(
        "--broker",
        envvar="NNLAT_BROKER_URL",
        help="Celery broker (amqp:// or redis://); default: measure in the server process.",
    ),
]

token_app = typer.Typer(help="API tokens of the server (stored hashed).", no_args_is_help=True)


def settings_from(db: str | None, broker: str | None = None) -> Settings:
    """Settings from the environment, with the command line's options on top."""
    from nnlat.cli.config import read_settings

    overrides = {k: v for k, v in {"db_url": db, "broker_url": broker}.items() if v}
    return read_settings(**overrides)


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port.", min=1, max=65535)] = 8000,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Server processes.")] = 1,
    db: DbUrlOption = None,
    broker: BrokerOption = None,
) -> None:
    """Run the REST service (OpenAPI at /docs). Without a broker, misses are measured here."""
    import os

    import uvicorn

    with user_errors():
        settings = settings_from(db, broker)  # fail early on bad settings, with a clear message
    for line in announcement(settings, host, port):
        stderr.print(line, highlight=False, soft_wrap=True)
    # uvicorn builds the app in each server process from the environment (the factory).
    if db:
        os.environ["NNLAT_DB_URL"] = db
    if broker:
        os.environ["NNLAT_BROKER_URL"] = broker
    uvicorn.run(
        "nnlat.server.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )


def announcement(settings: Settings, host: str, port: int) -> list[str]:
    """What ``nnlat serve`` says before it starts: where it listens and how to use it.

    Example:
        >>> from nnlat.settings import Settings
        >>> announcement(Settings(db_url="sqlite:///x.db"), "127.0.0.1", 8000)[:2]
        ['nnlat serve: http://127.0.0.1:8000', 'API docs:    http://127.0.0.1:8000/docs']
    """
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    url = f"http://{shown}:{port}"
    database = _hidden(settings.db_url) if settings.db_url else "SQLite in the user data directory"
    farm = (
        f"jobs go to workers via {_hidden(settings.broker_url)}"
        if settings.broker_url
        else "no broker: misses are measured in this process"
    )
    reads = "reading is open" if settings.open_reads else "reading too"
    return [
        f"nnlat serve: {url}" + (f" (listening on {host})" if shown != host else ""),
        f"API docs:    {url}/docs",
        f"database:    {database}",
        f"farm:        {farm}",
        f"tokens:      needed to upload and measure ({reads})",
        "             create one: nnlat token create NAME",
        f"clients:     nnlat query MODEL -p PLATFORM --server {url}",
        "stop with Ctrl+C",
    ]


def _hidden(url: str) -> str:
    """``url`` with its password replaced by ``***``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def worker_command(
    platform: Annotated[
        str, typer.Option("--platform", "-p", help="The platform this host measures.")
    ],
    db: DbUrlOption = None,
    broker: BrokerOption = None,
    name: Annotated[str | None, typer.Option("--name", help="Worker name (unique).")] = None,
    loglevel: Annotated[str, typer.Option("--loglevel", help="Celery log level.")] = "INFO",
) -> None:
    """Join the device farm: take PLATFORM's measurement jobs, one at a time."""
    from nnlat.farm.worker import run_worker

    with user_errors():
        settings = settings_from(db, broker)
        if not settings.broker_url:
            from nnlat.farm.dispatch import FarmUnavailableError

            raise FarmUnavailableError("a worker needs a broker: --broker or NNLAT_BROKER_URL")
        run_worker(settings, platform, loglevel, name)


@token_app.command("create")
def token_create(
    name: Annotated[str, typer.Argument(help="Who or what the token is for.")],
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Create a token; it is printed once and stored only hashed."""
    from nnlat.store import Store

    with user_errors(), Store.open(db) as store:
        token = store.tokens.create(name)
    if as_json:
        print_json({"name": name, "token": token})
    else:
        stdout.print(token, highlight=False)


@token_app.command("list")
def token_list(db: DbUrlOption = None) -> None:
    """Names of the tokens."""
    from nnlat.store import Store

    with user_errors(), Store.open(db) as store:
        for name in store.tokens.names():
            stdout.print(name, highlight=False)


@token_app.command("revoke")
def token_revoke(name: Annotated[str, typer.Argument()], db: DbUrlOption = None) -> None:
    """Delete a token: requests carrying it are refused from now on."""
    from nnlat.store import Store

    with user_errors(), Store.open(db) as store:
        found = store.tokens.revoke(name)
    if not found:
        stdout.print(f"[red]error:[/] no token named {name!r}", highlight=False)
        raise typer.Exit(2)
    stdout.print(f"revoked {name}")
