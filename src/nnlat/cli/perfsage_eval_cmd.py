"""``nnlat eval perfsage``: PerfSAGE's tables and figures on the EdgeDLPerf-like spaces."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.eval_options import (
    EpochsOption,
    OutOption,
    ReportOnlyOption,
    SeedOption,
    app,
    command_line,
)
from nnlat.cli.output import comma_list, progress_bar, stdout, user_errors
from nnlat.cli.predict_cmd import HiddenOption, TrainBatchOption, hidden_config

RESULTS = "results.jsonl"
REPORT = "README.md"


@app.command("perfsage")
def perfsage_command(
    ctx: typer.Context,
    spaces: Annotated[
        str, typer.Option("--spaces", help="Design spaces (zoo families), comma-separated.")
    ] = "cnn-cifar10,cnn-imagenet,cnn-kws,vit-cifar100",
    platforms: Annotated[
        str | None,
        typer.Option("--platforms", "-p", help="Platforms, comma-separated (default: all)."),
    ] = None,
    targets: Annotated[
        str, typer.Option("--targets", help="Targets to learn and score, comma-separated.")
    ] = "latency,memory,energy",
    parts: Annotated[
        str, typer.Option("--parts", help="Tables/figures to run, comma-separated.")
    ] = "table6,table4,table5,figure3,figure4,table7",
    alphas: Annotated[
        str, typer.Option("--alphas", help="The α values of Figure 4, comma-separated.")
    ] = "0,0.1,1,3,10,30,100",
    methods: Annotated[
        str,
        typer.Option(
            "--methods",
            help="Train only these methods' runs, comma-separated (default: all of --parts).",
        ),
    ] = "",
    per_space: Annotated[
        int | None,
        typer.Option("--per-space", min=10, help="Use at most this many graphs per space."),
    ] = None,
    space_caps: Annotated[
        list[str] | None,
        typer.Option(
            "--space-cap",
            help="SPACE=N: at most N graphs of this space, over --per-space (repeatable).",
        ),
    ] = None,
    cached_only: Annotated[
        bool,
        typer.Option(
            "--cached-only",
            help="Only models whose features are cached (scripts/cache_features.py); "
            "others would be exported to TFLite again, seconds each.",
        ),
    ] = False,
    epochs: EpochsOption = 150,
    seed: SeedOption = 0,
    hidden: HiddenOption = None,
    head_width: Annotated[
        int | None,
        typer.Option("--head-width", min=1, help="Width of PerfSAGE's heads (default: 1024)."),
    ] = None,
    train_batch: TrainBatchOption = 32,
    out: OutOption = Path("reports/perfsage"),
    save_generalised: Annotated[
        Path | None,
        typer.Option(
            "--save-generalised",
            help="Save the generalised PerfSAGE predictor to this folder (NNLP's to FOLDER-nnlp).",
        ),
    ] = None,
    report_only: ReportOnlyOption = False,
    db: DbUrlOption = None,
) -> None:
    """PerfSAGE specialised and generalised against Eagle, with its ablations (Tables 4-6,
    Figures 3-4): every target of every platform, 80/20 split per design space."""
    from nnlat.predictor.training import TrainSettings
    from nnlat.studies import perfsage as study

    with user_errors():
        config = study.PerfsageConfig(
            spaces=tuple(comma_list(spaces)),
            targets=tuple(comma_list(targets)),
            # every method keeps the epoch of the lowest median head MAPE: the CPU
            # memory head's noise must not choose it for the other heads
            settings=TrainSettings(
                epochs=epochs, seed=seed, batch_size=train_batch, median_head_selection=True
            ),
            config={
                **(hidden_config(hidden) or {}),
                **({"head_width": head_width} if head_width else {}),
            },
            per_space=per_space,
            space_caps=_space_caps(space_caps or [], comma_list(spaces)),
            parts=tuple(comma_list(parts)),
            alphas=tuple(float(a) for a in comma_list(alphas)),
            results_path=out / RESULTS,
            fit_missing=not report_only,
            command=command_line(ctx),
            save_generalised=save_generalised,
            methods=tuple(comma_list(methods)),
        )
        with progress_bar() as progress:
            records = []
            if not report_only:
                records = _records(
                    db, comma_list(platforms) or None, config.spaces, cached_only, progress
                )
            task = progress.add_task("runs", total=None)
            results = study.run(
                config,
                records,
                on_run=lambda r, i, n: progress.update(
                    task, completed=i, total=n, description=f"{r.method} {r.mode} {r.space}"
                ),
            )
        out.mkdir(parents=True, exist_ok=True)
        (out / REPORT).write_text(study.render(results))
        study.plot(results, out)
    stdout.print(f"wrote {out / REPORT}")


def _records(
    db: str | None,
    platforms: list[str] | None,
    spaces: tuple[str, ...],
    cached_only: bool,
    progress,
):  # type: ignore[no-untyped-def]
    """The spaces' records of the database (features from the cache where they are)."""
    from nnlat.datasets.training import default_cache_dir, load_records
    from nnlat.store import Store

    task = progress.add_task("features", total=None)
    with Store.open(db) as store:
        return load_records(
            store,
            platforms,
            spaces,
            cache_dir=default_cache_dir(),
            cached_only=cached_only,
            on_record=lambda done, total: progress.update(task, completed=done, total=total),
        )


def _space_caps(items: list[str], spaces: list[str]) -> dict[str, int]:
    """``["cnn-realblocks=3000"]`` → ``{"cnn-realblocks": 3000}``.

    Raises:
        typer.BadParameter: an item is not SPACE=N with N ≥ 10, or names a space that
            is not in ``spaces``.
    """
    caps = {}
    for item in items:
        space, _, count = item.partition("=")
        if space and space not in spaces:
            raise typer.BadParameter(f"{space!r} is not in --spaces", param_hint="--space-cap")
        if not space or not count.isdigit() or int(count) < 10:
            raise typer.BadParameter(
                f"{item!r}: expected SPACE=N with N >= 10", param_hint="--space-cap"
            )
        caps[space] = int(count)
    return caps
