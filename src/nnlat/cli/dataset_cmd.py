"""``nnlat dataset build`` (measure zoo variants, resumably), ``nnlat dataset import``
(published latency tables) and ``nnlat dataset profile`` (per-node profiles of stored
results, resumably)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.output import (
    comma_list,
    print_json,
    progress_bar,
    stdout,
    user_errors,
    whole_numbers,
)

app = typer.Typer(
    help="Latency datasets: measure zoo variants, or import published tables, into the database."
)


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
    batch_sizes: Annotated[
        list[str] | None,
        typer.Option(
            "--batch-sizes",
            "-b",
            help="Measure each variant at each of these batch sizes, comma-separated (default: 1).",
        ),
    ] = None,
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Measure PER_FAMILY variants of each family on each platform; safe to stop and rerun.

    Variants are drawn with a fixed seed, results already stored are skipped, and each
    result is written in its own transaction: rerun the same command to resume. Each
    measured variant's features go to the user's feature cache too, so that `nnlat train`
    and the studies read them instead of exporting every model again.
    """
    from nnlat.datasets import CAMPAIGN_SPEC, build_dataset
    from nnlat.datasets.training import default_cache_dir
    from nnlat.measure.runner import reference_platform
    from nnlat.store import Store
    from nnlat.zoo.registry import NNLQP_FAMILIES

    chosen = comma_list(families) or list(NNLQP_FAMILIES)
    batches = whole_numbers(batch_sizes or "1", "--batch-sizes", minimum=1)
    with user_errors(), Store.open(db) as store:
        names = comma_list(platforms) or [reference_platform().name]
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
                feature_cache=default_cache_dir(),
                batch_sizes=batches,
            )
    if as_json:
        print_json({"seconds": report.seconds, "results": report.rows()})
        return
    table = Table("family", "platform", "measured", "skipped", "failed", "refused")
    for row in report.rows():
        table.add_row(*(str(v) for v in row.values()))
    stdout.print(table)
    stdout.print(f"campaign time {report.seconds:.0f} s")


@app.command("import")
def import_command(
    file: Annotated[
        Path, typer.Argument(help="A wide latency CSV: id, arch_str, one column of ms per device.")
    ],
    space: Annotated[
        str, typer.Option("--space", "-s", help="Search space: nas-bench-201 or fbnet.")
    ],
    source: Annotated[
        str | None,
        typer.Option(help="Dataset name, the runtime slot of its platforms (default: from FILE)."),
    ] = None,
    device: Annotated[
        str | None,
        typer.Option(help="Device name for a file with one latency_ms column (default: FILE)."),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", min=1, help="Processes building graphs.")
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            min=1, help="Import only this many architectures, drawn at random (seeded by --seed)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --sample.")] = 0,
    features: Annotated[
        bool,
        typer.Option(help="Fill the training feature cache while building graphs."),
    ] = True,
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Import published latencies: one model per architecture, one platform per device.

    Rerunning adds nothing; an interrupted import keeps the graphs it built, so rerun
    the same command to finish.
    """
    from nnlat.datasets.published import import_latency_table, read_latency_table
    from nnlat.datasets.training import default_cache_dir
    from nnlat.store import Store

    with user_errors():
        table = read_latency_table(file, space, source=source, device=device)
        if sample is not None:
            table = table.sample(sample, seed)
        with Store.open(db) as store, progress_bar(as_json) as progress:
            task = progress.add_task("architectures", total=len(table.archs))
            report = import_latency_table(
                store,
                table,
                workers=workers,
                cache_dir=default_cache_dir() if features else None,
                on_arch=lambda done, _: progress.update(task, completed=done),
            )
    if as_json:
        print_json(asdict(report))
        return
    batches: dict[str, list[int]] = {}
    for column in table.devices:
        batches.setdefault(column.platform.name, []).append(column.batch_size)
    stdout.print(
        f"{file.name}: {report.archs} architectures ({report.built} built now, "
        f"{report.models_added} new models), {report.measurements_added} of {report.values} "
        "values added"
        + (f", {report.missing} empty or non-positive cells skipped" if report.missing else ""),
        soft_wrap=True,
    )
    for name, sizes in batches.items():
        stdout.print(f"  {name} (batch {', '.join(map(str, sizes))})", soft_wrap=True)


@app.command("profile")
def profile_command(
    platform: Annotated[
        str,
        typer.Option(
            "--platform", "-p", help="The stored onnxruntime platform whose results to profile."
        ),
    ],
    families: Annotated[
        list[str] | None,
        typer.Option("--families", "-f", help="Only these families, comma-separated."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=1, help="Profile at most this many now.")
    ] = None,
    runs: Annotated[
        int, typer.Option("--runs", min=1, help="Profiled runs per model (after a warm-up).")
    ] = 3,
    features: Annotated[
        bool,
        typer.Option(help="Fill the training feature cache with the graphs rebuilt."),
    ] = True,
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Add onnxruntime's per-node profile to stored results, without timing them again.

    Each stored ok result of PLATFORM (this host's hardware) without a profile gets one,
    taken with this host's onnxruntime; a model that cannot be profiled gets a note.
    Rerun the same command to resume: done results are skipped.
    """
    from nnlat.datasets.node_profiles import profile_stored
    from nnlat.datasets.training import default_cache_dir
    from nnlat.store import Store

    with user_errors(), Store.open(db) as store, progress_bar(as_json) as progress:
        task = progress.add_task("profiles", total=None)

        def advance(done: int, total: int, graph_hash: str) -> None:
            progress.update(task, completed=done, total=total, description=graph_hash)

        report = profile_stored(
            store, platform, comma_list(families) or None, limit=limit, runs=runs,
            cache_dir=default_cache_dir() if features else None, on_profiled=advance,
        )  # fmt: skip
    if as_json:
        print_json(asdict(report))
        return
    stdout.print(
        f"{platform}: {report.profiled} profiled, {report.failed} failed (noted), "
        f"{report.skipped} had a profile already; {report.seconds:.0f} s"
    )
