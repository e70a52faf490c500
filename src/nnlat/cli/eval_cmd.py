"""``nnlat eval``: evaluation protocols that write tables and plots into ``reports/``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.output import progress_bar, stdout, user_errors

app = typer.Typer(help="Evaluate predictors on the database; write reports.")

DEFAULT_METHODS = "nnlp,flops-lr,flops-macs-lr,nn-meter,xgboost"


@app.command("unseen-structure")
def unseen_structure_command(
    platform: Annotated[
        str | None,
        typer.Option("--platform", "-p", help="Platform to evaluate (default: reference)."),
    ] = None,
    methods: Annotated[
        str, typer.Option("--methods", "-m", help="Comma-separated methods.")
    ] = DEFAULT_METHODS,
    families: Annotated[
        str | None, typer.Option("--families", "-f", help="Held-out families (default: all).")
    ] = None,
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="NNLP's most epochs.")] = 150,
    seed: Annotated[int, typer.Option("--seed", help="Seed.")] = 0,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Report path stem (.md, .png, .jsonl).")
    ] = Path("reports/unseen_structure"),
    db: DbUrlOption = None,
) -> None:
    """Leave one family out: train on the others, test on it (NNLQP Table 3)."""
    from nnlat.datasets.training import default_cache_dir, load_records
    from nnlat.measure.runner import reference_platform
    from nnlat.predictor.evaluation import unseen_structure
    from nnlat.predictor.report import scatter_plot, unseen_structure_markdown
    from nnlat.predictor.training import TrainSettings
    from nnlat.store import Store

    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    held = [f.strip() for f in families.split(",")] if families else None
    with user_errors():
        name = platform or reference_platform().name
        with (
            progress_bar() as progress,
            Store.open(db) as store,
        ):
            task = progress.add_task("features", total=None)
            records = load_records(
                store,
                [name],
                cache_dir=default_cache_dir(),
                on_record=lambda done, total: progress.update(task, completed=done, total=total),
            )
            folds = len(held or {r.family for r in records}) * len(chosen)
            fold_task = progress.add_task("folds", total=folds)
            results = unseen_structure(
                records,
                name,
                chosen,
                families=held,
                settings=TrainSettings(epochs=epochs, seed=seed),
                results_path=out.with_suffix(".jsonl"),
                on_result=lambda r: progress.update(
                    fold_task, advance=1, description=f"{r.method} without {r.family}"
                ),
            )
        command = "nnlat eval unseen-structure " + shlex.join(sys.argv[3:])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".md").write_text(unseen_structure_markdown(results, command.strip()))
        scatter_plot(results, chosen[0], out.with_suffix(".png"))
    stdout.print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.png')}")
