"""``nnlat eval``: run a study of :mod:`nnlat.studies` and write its report folder.

Each command parses its options into the study's config, calls ``run`` and ``render``,
and writes ``OUT/README.md`` (with the command that made it), the plot and, where
results accumulate, ``OUT/results.jsonl`` (rerunning resumes; ``--report-only`` rebuilds
the report from it without the database).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nnlat.cli import (  # noqa: F401  (each registers its commands on app)
    maple_eval_cmd,
    perfsage_eval_cmd,
    published_eval_cmd,
)
from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.eval_options import (
    EpochsOption,
    FamiliesOption,
    MethodsOption,
    OutOption,
    PlatformOption,
    ProfiledOption,
    ReportOnlyOption,
    SeedOption,
    WithinOption,
    app,
    command_line,
    ints,
    load_records,
    platform_or_reference,
    train_settings,
)
from nnlat.cli.output import comma_list, progress_bar, stdout, user_errors
from nnlat.cli.predict_cmd import HiddenOption, TrainBatchOption, hidden_config

__all__ = ["app"]

DEFAULT_METHODS = "nnlp,brpnas,flops-lr,flops-macs-lr,nn-meter,kernel-sage,xgboost"
REPORT = "README.md"
RESULTS = "results.jsonl"
PLOT = "plot.png"


def _write(out: Path, markdown: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / REPORT).write_text(markdown)
    stdout.print(f"wrote {out / REPORT}")


def _leave_one_out(
    ctx: typer.Context,
    methods: tuple[str, ...],
    platform: str | None,
    families: str | None,
    epochs: int,
    seed: int,
    hidden: int | None,
    train_batch: int,
    out: Path,
    db: str | None,
    report_only: bool,
    title: str,
    within: str | None = None,
    profiled_only: bool = False,
) -> None:
    from nnlat.studies import unseen_structure as study

    held = tuple(comma_list(families)) or None
    with user_errors():
        name = platform_or_reference(platform)
        config = study.UnseenStructureConfig(
            platform=name,
            methods=methods,
            families=held,
            settings=train_settings(epochs, seed, train_batch),
            config=hidden_config(hidden) or {},
            results_path=out / RESULTS,
            fit_missing=not report_only,
            title=title,
            command=command_line(ctx),
            plot=PLOT,
        )
        with progress_bar() as progress:
            only = comma_list(within) or None
            records = (
                []
                if report_only
                else load_records(db, [name], progress, families=only, profiled_only=profiled_only)
            )
            folds = len(held or {r.family for r in records}) * len(methods)
            fold_task = progress.add_task("folds", total=folds)
            results = study.run(
                config,
                records,
                on_result=lambda r: progress.update(
                    fold_task, advance=1, description=f"{r.method} without {r.family}"
                ),
            )
        _write(out, study.render(results))
        study.scatter_plot(results.rows, methods[0], out / PLOT)


@app.command("unseen-structure")
def unseen_structure_command(
    ctx: typer.Context,
    platform: PlatformOption = None,
    methods: MethodsOption = DEFAULT_METHODS,
    families: FamiliesOption = None,
    epochs: EpochsOption = 150,
    seed: SeedOption = 0,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    out: OutOption = Path("reports/unseen_structure"),
    report_only: ReportOnlyOption = False,
    within: WithinOption = None,
    profiled_only: ProfiledOption = False,
    db: DbUrlOption = None,
) -> None:
    """Leave one family out: train on the others, test on it (NNLQP Table 3)."""
    from nnlat.studies.unseen_structure import UNSEEN_STRUCTURE_TITLE

    chosen = tuple(comma_list(methods))
    _leave_one_out(
        ctx, chosen, platform, families, epochs, seed, hidden, train_batch, out, db,
        report_only, UNSEEN_STRUCTURE_TITLE, within, profiled_only,
    )  # fmt: skip


@app.command("random-split")
def random_split_command(
    ctx: typer.Context,
    platform: PlatformOption = None,
    methods: MethodsOption = "nnlp,nnlp-node-aux0.1",
    seeds: Annotated[str, typer.Option("--seeds", help="Comma-separated seeds.")] = "0",
    epochs: EpochsOption = 150,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    out: OutOption = Path("reports/random_split"),
    within: WithinOption = None,
    profiled_only: ProfiledOption = False,
    report_only: ReportOnlyOption = False,
    db: DbUrlOption = None,
) -> None:
    """Random 80/10/10 split of graphs, per seed: train, choose on validation, test."""
    from nnlat.studies import random_split as study

    with user_errors():
        settings = train_settings(epochs, 0, train_batch)
        config = study.RandomSplitConfig(
            platform=platform_or_reference(platform),
            methods=tuple(comma_list(methods)),
            seeds=tuple(ints(seeds)),
            settings=settings.model_copy(update={"valid_fraction": 1 / 9}),
            config=hidden_config(hidden) or {},
            results_path=out / RESULTS,
            fit_missing=not report_only,
            command=command_line(ctx),
        )
        with progress_bar() as progress:
            only = comma_list(within) or None
            records = (
                []
                if report_only
                else load_records(
                    db, [config.platform], progress, families=only, profiled_only=profiled_only
                )
            )
            task = progress.add_task("fits", total=len(config.seeds) * len(config.methods))
            results = study.run(
                config,
                records,
                on_result=lambda r: progress.update(
                    task, advance=1, description=f"{r.method} seed {r.seed}"
                ),
            )
        _write(out, study.render(results))


@app.command("ablation")
def ablation_command(
    ctx: typer.Context,
    platform: PlatformOption = None,
    families: FamiliesOption = None,
    epochs: EpochsOption = 150,
    seed: SeedOption = 0,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    out: OutOption = Path("reports/ablation"),
    report_only: ReportOnlyOption = False,
    db: DbUrlOption = None,
) -> None:
    """NNLP without node features / GNN / static features, left one family out (Table 4)."""
    from nnlat.studies.unseen_structure import ABLATION_METHODS, ABLATION_TITLE

    _leave_one_out(
        ctx, ABLATION_METHODS, platform, families, epochs, seed, hidden, train_batch, out, db,
        report_only, ABLATION_TITLE,
    )  # fmt: skip


@app.command("multi-platform")
def multi_platform_command(
    ctx: typer.Context,
    epochs: EpochsOption = 150,
    seed: SeedOption = 0,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    out: OutOption = Path("reports/multi_platform"),
    db: DbUrlOption = None,
) -> None:
    """One multi-head predictor against one predictor per platform (NNLQP Table 6)."""
    from nnlat.studies import multi_platform as study

    with user_errors():
        config = study.MultiPlatformConfig(
            settings=train_settings(epochs, seed, train_batch),
            config=hidden_config(hidden) or {},
            command=command_line(ctx),
        )
        with progress_bar() as progress:
            results = study.run(config, load_records(db, None, progress))
        _write(out, study.render(results))


@app.command("transfer")
def transfer_command(
    ctx: typer.Context,
    family: Annotated[
        list[str] | None, typer.Option("--family", "-f", help="Unseen family (repeatable).")
    ] = None,
    target: Annotated[
        list[str] | None,
        typer.Option("--target-platform", "-t", help="Unseen platform (repeatable)."),
    ] = None,
    platform: PlatformOption = None,
    ks: Annotated[str, typer.Option("--ks", help="Comma-separated k values.")] = "32,100,200",
    epochs: EpochsOption = 150,
    seed: SeedOption = 0,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    out: OutOption = Path("reports/transfer"),
    db: DbUrlOption = None,
) -> None:
    """Pre-trained + fine-tuned on k samples versus from scratch (NNLQP Figures 6-7).

    ``--family F`` pre-trains on PLATFORM's other families; ``--target-platform T``
    pre-trains on PLATFORM and transfers to T.
    """
    from nnlat.studies import transfer as study

    if not family and not target:
        raise typer.BadParameter("give --family and/or --target-platform")
    with user_errors():
        config = study.TransferConfig(
            platform=platform_or_reference(platform),
            families=tuple(family or ()),
            targets=tuple(target or ()),
            ks=tuple(ints(ks)),
            settings=train_settings(epochs, seed, train_batch),
            config=hidden_config(hidden) or {},
            command=command_line(ctx),
            plot=PLOT,
        )
        with progress_bar() as progress:
            results = study.run(config, load_records(db, None, progress))
        _write(out, study.render(results))
        study.plot(results.rows, out / PLOT)


@app.command("held-out")
def held_out_command(
    ctx: typer.Context,
    platform: PlatformOption = None,
    methods: MethodsOption = "nnlp,xgboost,flops-macs-lr",
    epochs: EpochsOption = 150,
    seed: SeedOption = 0,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    out: OutOption = Path("reports/held_out"),
    db: DbUrlOption = None,
) -> None:
    """Train on zoo families (NNLQP's ten, broad zoo, small nets); test on real-world models."""
    from nnlat.studies import held_out as study

    with user_errors():
        config = study.HeldOutConfig(
            platform=platform_or_reference(platform),
            methods=tuple(comma_list(methods)),
            settings=train_settings(epochs, seed, train_batch),
            config=hidden_config(hidden) or {},
            command=command_line(ctx),
        )
        with progress_bar() as progress:
            records = load_records(db, [config.platform], progress, realworld=True)
            total = len(config.training_sets) * len(config.methods)
            task = progress.add_task("training", total=total)
            results = study.run(
                config,
                records,
                on_result=lambda r: progress.update(
                    task, advance=1, description=f"{r.method} on {r.training_set}"
                ),
            )
            progress.update(task, completed=total)  # a training set may have been skipped
        _write(out, study.render(results))
        study.plot(results.rows, out / PLOT)
