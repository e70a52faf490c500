"""``nnlat eval``: evaluation protocols that write tables and plots into ``reports/``.

Each command loads the database's records (features cached), runs one protocol of the
NNLQP paper and writes ``STEM.md`` (with the command that made it), ``STEM.png`` and,
where results accumulate, ``STEM.jsonl`` (rerunning resumes).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.output import comma_list, progress_bar, stdout, user_errors
from nnlat.cli.predict_cmd import HiddenOption, TrainBatchOption, hidden_config
from nnlat.predictor.training import TrainSettings

app = typer.Typer(help="Evaluate predictors on the database; write reports.")

DEFAULT_METHODS = "nnlp,brpnas,flops-lr,flops-macs-lr,nn-meter,tpu,xgboost"
PlatformOption = Annotated[
    str | None,
    typer.Option("--platform", "-p", help="Platform to evaluate (default: reference)."),
]
EpochsOption = Annotated[int, typer.Option("--epochs", min=1, help="Most training epochs.")]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of splits and training.")]
FamiliesOption = Annotated[
    str | None, typer.Option("--families", "-f", help="Held-out families (default: all).")
]
OutOption = Annotated[Path, typer.Option("--out", "-o", help="Report path stem.")]
MethodsOption = Annotated[str, typer.Option("--methods", "-m", help="Comma-separated methods.")]
ReportOnlyOption = Annotated[
    bool,
    typer.Option(
        "--report-only",
        help="Train nothing: rebuild the report from the results STEM.jsonl already holds.",
    ),
]


def _command(ctx: typer.Context) -> str:
    """The running command as a user would type it: options that differ from their defaults.

    Read from the command's context rather than ``sys.argv``, which is the test runner's
    under ``CliRunner``. ``--db`` is left out: it may carry credentials.
    """
    words = ["nnlat", *ctx.command_path.split()[1:]]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if param.name == "db" or value is None or value == param.default or not param.opts:
            continue
        flag = param.opts[0]
        if isinstance(value, bool):
            words.append(flag if value else (param.secondary_opts or [flag])[0])
        elif isinstance(value, list | tuple):  # a repeatable option: once per value
            words += [word for item in value for word in (flag, str(item))]
        else:
            words += [flag, str(value)]
    return shlex.join(words)


def _records(
    db: str | None, platforms: list[str] | None, progress: Progress, realworld: bool = False
) -> list:  # type: ignore[type-arg]
    """The database's records; the held-out real-world models only if ``realworld``."""
    from nnlat.datasets.training import default_cache_dir, load_records, without_realworld
    from nnlat.store import Store

    task = progress.add_task("features", total=None)
    with Store.open(db) as store:
        records = load_records(
            store,
            platforms,
            cache_dir=default_cache_dir(),
            on_record=lambda done, total: progress.update(task, completed=done, total=total),
        )
    return records if realworld else without_realworld(records)


def _platform(platform: str | None) -> str:
    from nnlat.measure.runner import reference_platform

    return platform or reference_platform().name


def _settings(epochs: int, seed: int, train_batch: int) -> TrainSettings:
    return TrainSettings(epochs=epochs, seed=seed, batch_size=train_batch)


def _leave_one_out(
    ctx: typer.Context,
    methods: list[str],
    platform: str | None,
    families: str | None,
    settings: TrainSettings,
    config: dict[str, object] | None,
    out: Path,
    db: str | None,
    report_only: bool = False,
    title: str | None = None,
) -> None:
    from nnlat.predictor.evaluation import unseen_structure
    from nnlat.predictor.report import (
        UNSEEN_STRUCTURE_TITLE,
        scatter_plot,
        unseen_structure_markdown,
    )

    held = comma_list(families) or None
    with user_errors():
        name = _platform(platform)
        with progress_bar() as progress:
            records = _records(db, [name], progress)
            folds = len(held or {r.family for r in records}) * len(methods)
            fold_task = progress.add_task("folds", total=folds)
            results = unseen_structure(
                records,
                name,
                methods,
                families=held,
                settings=settings,
                config=config,
                results_path=out.with_suffix(".jsonl"),
                fit_missing=not report_only,
                on_result=lambda r: progress.update(
                    fold_task, advance=1, description=f"{r.method} without {r.family}"
                ),
            )
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".md").write_text(
            unseen_structure_markdown(
                results,
                _command(ctx),
                methods,
                held or sorted({r.family for r in records}),
                title or UNSEEN_STRUCTURE_TITLE,
                out.with_suffix(".png").name,
            )
        )
        scatter_plot(results, methods[0], out.with_suffix(".png"))
    stdout.print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.png')}")


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
    db: DbUrlOption = None,
) -> None:
    """Leave one family out: train on the others, test on it (NNLQP Table 3)."""
    chosen = comma_list(methods)
    settings = _settings(epochs, seed, train_batch)
    config = hidden_config(hidden)
    _leave_one_out(ctx, chosen, platform, families, settings, config, out, db, report_only)


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
    from nnlat.predictor.evaluation import ABLATION_METHODS
    from nnlat.predictor.report import ABLATION_TITLE

    settings = _settings(epochs, seed, train_batch)
    config = hidden_config(hidden)
    methods = list(ABLATION_METHODS)
    _leave_one_out(
        ctx, methods, platform, families, settings, config, out, db, report_only, ABLATION_TITLE
    )


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
    from nnlat.predictor.multi_platform import multi_platform, multi_platform_markdown

    with user_errors():
        with progress_bar() as progress:
            records = _records(db, None, progress)
            study = multi_platform(
                records,
                settings=_settings(epochs, seed, train_batch),
                config=hidden_config(hidden),
            )
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".md").write_text(multi_platform_markdown(study, _command(ctx)))
    stdout.print(f"wrote {out.with_suffix('.md')}")


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
    from nnlat.predictor.transfer_study import (
        transfer_markdown,
        transfer_plot,
        unseen_family_curve,
        unseen_platform_curve,
    )

    k_values = [int(k) for k in comma_list(ks)]
    settings = _settings(epochs, seed, train_batch)
    config = hidden_config(hidden)
    with user_errors():
        source = _platform(platform)
        points = []
        with progress_bar() as progress:
            records = _records(db, None, progress)
            for name in family or []:
                points += unseen_family_curve(
                    records, source, name, k_values, settings=settings, config=config
                )
            for name in target or []:
                points += unseen_platform_curve(
                    records, [source], name, k_values, settings=settings, config=config
                )
        if not points:
            raise typer.BadParameter("give --family and/or --target-platform")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".md").write_text("\n".join(transfer_markdown(points, _command(ctx))))
        transfer_plot(points, str(out.with_suffix(".png")))
    stdout.print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.png')}")


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
    from nnlat.predictor.held_out import TRAINING_SETS, held_out_markdown, held_out_structures

    chosen = comma_list(methods)
    with user_errors():
        name = _platform(platform)
        with progress_bar() as progress:
            records = _records(db, [name], progress, realworld=True)
            total = len(TRAINING_SETS) * len(chosen)
            task = progress.add_task("training", total=total)
            results = held_out_structures(
                records,
                name,
                chosen,
                settings=_settings(epochs, seed, train_batch),
                config=hidden_config(hidden),
                on_result=lambda r: progress.update(
                    task, advance=1, description=f"{r.method} on {r.training_set}"
                ),
            )
            progress.update(task, completed=total)  # a training set may have been skipped
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".md").write_text(held_out_markdown(results, _command(ctx)))
    stdout.print(f"wrote {out.with_suffix('.md')}")


# The published-data protocols (BRP-NAS, few-shot) register on this group.
from nnlat.cli import published_eval_cmd  # noqa: E402, F401
