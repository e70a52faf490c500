"""What every ``nnlat eval`` command shares: the command group, its options, the exact
command line a report quotes, and loading the database's records."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress

from nnlat.cli.output import comma_list
from nnlat.features.records import LatencyRecord
from nnlat.predictor.training import TrainSettings

app = typer.Typer(help="Evaluate predictors on the database; write reports.")

PlatformOption = Annotated[
    str | None,
    typer.Option("--platform", "-p", help="Platform to evaluate (default: reference)."),
]
EpochsOption = Annotated[int, typer.Option("--epochs", min=1, help="Most training epochs.")]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of splits and training.")]
FamiliesOption = Annotated[
    str | None, typer.Option("--families", "-f", help="Held-out families (default: all).")
]
WithinOption = Annotated[
    str | None,
    typer.Option(
        "--within",
        help="Only records of these families, comma-separated, for training and testing "
        "(default: all).",
    ),
]
ProfiledOption = Annotated[
    bool,
    typer.Option(
        "--profiled-only",
        help="Only records whose measurement has a per-node profile (`nnlat dataset profile`).",
    ),
]
OutOption = Annotated[Path, typer.Option("--out", "-o", help="Report folder.")]
MethodsOption = Annotated[str, typer.Option("--methods", "-m", help="Comma-separated methods.")]
ReportOnlyOption = Annotated[
    bool,
    typer.Option(
        "--report-only",
        help="Train nothing: rebuild the report from the results OUT/results.jsonl holds.",
    ),
]


def command_line(ctx: typer.Context) -> str:
    """The running command as a user would type it: options that differ from their defaults.

    Read from the command's context rather than ``sys.argv``, which is the test runner's
    under ``CliRunner``. ``--db`` is left out: it may carry credentials.
    """
    # The subcommands' names from the context chain, not ``command_path``: under
    # ``python -m nnlat`` the root's name is "python -m nnlat", three words.
    names: list[str] = []
    level: typer.Context | None = ctx
    while level is not None and level.parent is not None:
        names.insert(0, level.info_name or "")
        level = level.parent
    words = ["nnlat", *names]
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


def load_records(
    db: str | None,
    platforms: list[str] | None,
    progress: Progress,
    realworld: bool = False,
    families: list[str] | None = None,
    profiled_only: bool = False,
) -> list[LatencyRecord]:
    """The database's records (of ``families`` only, if given; with a per-node profile
    only, if ``profiled_only``); the held-out real-world models only if ``realworld``."""
    from nnlat.datasets.training import default_cache_dir, without_realworld
    from nnlat.datasets.training import load_records as load
    from nnlat.store import Store

    task = progress.add_task("features", total=None)
    with Store.open(db) as store:
        records = load(
            store,
            platforms,
            families or None,
            cache_dir=default_cache_dir(),
            profiled_only=profiled_only,
            on_record=lambda done, total: progress.update(task, completed=done, total=total),
        )
    return records if realworld else without_realworld(records)


def platform_or_reference(platform: str | None) -> str:
    """``platform``, or the reference platform's name."""
    from nnlat.measure.runner import reference_platform

    return platform or reference_platform().name


def train_settings(epochs: int, seed: int, train_batch: int) -> TrainSettings:
    """The graph networks' training settings from the common options."""
    return TrainSettings(epochs=epochs, seed=seed, batch_size=train_batch)


def ints(text: str) -> list[int]:
    """A comma-separated list of integers."""
    return [int(s) for s in comma_list(text)]
