"""``nnlat db``: statistics, export and import of the measurement database."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from nnlat.cli.output import print_json, stdout, user_errors
from nnlat.cli.remote import ServerOption, TokenOption, client_of

app = typer.Typer(help="The measurement database (SQLite by default, NNLAT_DB_URL to change).")

DbUrlOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="NNLAT_DB_URL",
        help="Database URL (default: SQLite in the user data directory).",
    ),
]


@app.command("stats")
def stats_command(
    db: DbUrlOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Count models, platforms and measurements; show the cache hit ratio."""
    from nnlat.store import Store, StoreStats

    if server is not None:
        with user_errors(), client_of(server, token) as client:
            # The server names its database only to token holders.
            remote = {"url": f"the database behind {server}", **client.stats()}
            stats = StoreStats.model_validate(remote)
    else:
        with user_errors(), Store.open(db) as store:
            stats = store.stats()
    if as_json:
        print_json(stats.model_dump())
        return
    table = Table.grid(padding=(0, 2))
    table.add_row("database", stats.url)
    table.add_row("models", f"{stats.models:,}")
    table.add_row("platforms", f"{stats.platforms:,}")
    table.add_row("measurements", f"{stats.measurements:,}")
    for status, count in stats.measurements_by_status.items():
        table.add_row(f"  {status}", f"{count:,}")
    for platform, count in stats.measurements_by_platform.items():
        table.add_row(f"  on {platform}", f"{count:,}")
    ratio = "n/a" if stats.hit_ratio is None else f"{stats.hit_ratio:.1%}"
    table.add_row(
        "cache hit ratio", f"{ratio} ({stats.lookup_hits} hits, {stats.lookup_misses} misses)"
    )
    stdout.print(table)


@app.command("export")
def export_command(
    path: Annotated[Path, typer.Argument(help="Output file (.jsonl.gz).")],
    platforms: Annotated[
        list[str] | None,
        typer.Option("--platform", "-p", help="Only this platform (repeatable)."),
    ] = None,
    npu_layers: Annotated[
        bool,
        typer.Option(
            "--npu-layers/--no-npu-layers",
            help="Keep Vela's per-layer tables (a ViT's is ~280 kB; Vela recreates them).",
        ),
    ] = True,
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Write every model, platform and measurement to a gzip JSON-Lines file."""
    from nnlat.store import Store

    with user_errors(), Store.open(db) as store:
        models = store.export(path, platforms, npu_layers=npu_layers)
    if as_json:
        print_json({"path": str(path), "models": models})
    else:
        stdout.print(f"exported {models:,} models to {path}")


@app.command("import")
def import_command(
    path: Annotated[Path, typer.Argument(help="A file written by `nnlat db export`.")],
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Add the models and measurements of an export file (importing twice adds nothing)."""
    from nnlat.store import Store

    with user_errors(), Store.open(db) as store:
        report = store.import_(path)
    if as_json:
        print_json(report.model_dump())
    else:
        stdout.print(
            f"read {report.models_read:,} models / {report.measurements_read:,} measurements; "
            f"added {report.models_added:,} / {report.measurements_added:,}"
        )
