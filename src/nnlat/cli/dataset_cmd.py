"""``nnlat dataset build``: measure zoo variants on several platforms, resumably."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.output import print_json, progress_bar, stdout, user_errors

app = typer.Typer(help="Measured datasets: build them from the zoo into the database.")


def _split(values: list[str] | None) -> list[str]:
    """``-f a,b -f c`` → ``[a, b, c]``."""
    return [item.strip() for value in values or [] for item in value.split(",") if item.strip()]


@app.command("build")
def build_command(
    families: Annotated[
        list[str] | None,
        typer.Option(
            "--families", "-f", help="Zoo families, comma-separated (default: the 10 NNLQP ones)."
        ),
    ] = None,
    per_family: Annotated[
        int, typer.Option("--per-family", "-n", min=1, help="Distinct variants per family.")
    ] = 200,
    platforms: Annotated[
        list[str] | None,
        typer.Option(
            "--platforms",
            "-p",
            help="Platforms of this host, comma-separated (default: the reference platform).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Sampling seed.")] = 0,
    max_time: Annotated[
        float, typer.Option("--max-time", min=0.01, help="Timing budget per measurement, seconds.")
    ] = 1.0,
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Measure PER_FAMILY variants of each family on each platform; safe to stop and rerun.

    Variants are drawn with a fixed seed, results already stored are skipped, and each
    result is written in its own transaction: rerun the same command to resume.
    """
    from nnlat.datasets import CAMPAIGN_SPEC, build_dataset
    from nnlat.measure.runner import reference_platform
    from nnlat.store import Store
    from nnlat.zoo.registry import NNLQP_FAMILIES

    chosen = _split(families) or list(NNLQP_FAMILIES)
    with user_errors(), Store.open(db) as store:
        names = _split(platforms) or [reference_platform().name]
        with progress_bar(as_json) as progress:
            task = progress.add_task("variants", total=len(chosen) * per_family)

            def advance(family: str, index: int, target: int) -> None:
                progress.update(task, advance=1, description=f"{family} {index}/{target}")

            report = build_dataset(
                store,
                chosen,
                per_family,
                names,
                seed=seed,
                spec=CAMPAIGN_SPEC.model_copy(update={"max_time_s": max_time}),
                on_variant=advance,
            )
    if as_json:
        print_json({"seconds": report.seconds, "results": report.rows()})
        return
    table = Table("family", "platform", "measured", "skipped", "failed")
    for row in report.rows():
        table.add_row(*(str(v) for v in row.values()))
    stdout.print(table)
    stdout.print(f"campaign time {report.seconds:.0f} s")
