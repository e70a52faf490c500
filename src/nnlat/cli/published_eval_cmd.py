"""``nnlat eval brpnas-nb201`` and ``nnlat eval few-shot``: protocols on published data.

Both read the published latency tables of ``data/published/`` (or any file of that
shape). ``brpnas-nb201`` runs on the networks imported into the database (ONNX graphs)
or, with ``--cells FILE``, on the file's cell graphs directly; ``few-shot`` always works
on cell graphs read from its files, so nothing needs importing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.eval_options import (
    MethodsOption,
    OutOption,
    ReportOnlyOption,
    app,
    command_line,
    ints,
    load_records,
)
from nnlat.cli.output import comma_list, print_json, progress_bar, stdout, user_errors

if TYPE_CHECKING:
    from nnlat.studies.few_shot import FewShotConfig, FewShotResult
    from nnlat.studies.results import Results

LATBENCH_CPU = "desktop_cpu_i7_7820x-latbench1.0-fp32"
REPORT = "README.md"
RESULTS = "results.jsonl"


@app.command("brpnas-nb201")
def brpnas_nb201_command(
    ctx: typer.Context,
    platform: Annotated[
        str | None,
        typer.Option(
            "--platform",
            "-p",
            help="An imported NAS-Bench-201 platform (default: LatBench's desktop CPU), or "
            "with --cells a column of the file (default: its only one).",
        ),
    ] = None,
    cells: Annotated[
        Path | None,
        typer.Option(
            "--cells",
            exists=True,
            dir_okay=False,
            help="Read this published NAS-Bench-201 CSV and train on its cell graphs "
            "(nothing imported; every architecture of the file).",
        ),
    ] = None,
    methods: MethodsOption = "gcn,nnlp,cell-lr,cell-xgboost,layerwise,gcn-identity,gcn-random",
    seeds: Annotated[
        str, typer.Option("--seeds", help="Draws to average, comma-separated.")
    ] = "0,1,2",
    train_sizes: Annotated[
        str, typer.Option("--train-sizes", help="Training networks per draw, comma-separated.")
    ] = "900",
    epochs: Annotated[
        int | None, typer.Option("--epochs", min=1, help="Cap graph methods' epochs (quick run).")
    ] = None,
    largest: Annotated[
        int,
        typer.Option(
            "--test-after", min=1, help="Test on each draw's networks after this many + 100."
        ),
    ] = 2000,
    out: OutOption = Path("reports/brpnas_nb201"),
    report_only: ReportOnlyOption = False,
    db: DbUrlOption = None,
) -> None:
    """Reproduce BRP-NAS (Yue 2021) on published NAS-Bench-201 latencies: 900/100/rest.

    On ONNX graphs, import the data first: `nnlat dataset import
    latbench_desktop_cpu_i7_7820x_fp32_ms.csv --space nas-bench-201`. With `--cells` the
    file is read directly.
    """
    from nnlat.datasets.cell_graphs import cell_archs, cell_records
    from nnlat.datasets.published import read_latency_table
    from nnlat.store import Store
    from nnlat.studies import brpnas as study

    config = study.BrpnasStudyConfig(
        methods=tuple(comma_list(methods)),
        seeds=tuple(ints(seeds)),
        train_sizes=tuple(ints(train_sizes)),
        platform=platform or LATBENCH_CPU,
        graphs="cell graphs" if cells else study.ONNX_GRAPHS,
        results_path=out / RESULTS,
        epochs=epochs,
        largest=largest,
        fit_missing=not report_only,
        command=command_line(ctx),
    )
    with user_errors():
        if report_only:
            results = study.run(config, [])
        else:
            with progress_bar() as progress:
                if cells is not None:
                    table = read_latency_table(cells, "nas-bench-201")
                    if platform is None and len(table.devices) > 1:
                        columns = ", ".join(d.column for d in table.devices)
                        raise typer.BadParameter(f"choose a device with -p: {columns}")
                    config = replace(config, platform=platform or table.devices[0].column)
                    records, archs = cell_records(table, config.platform), cell_archs(table)
                else:
                    records = load_records(db, [config.platform], progress)
                    with Store.open(db) as store:
                        archs = study.nasbench201_archs(store)
                if not records:
                    raise typer.BadParameter(
                        f"no measurements on {config.platform}: import them first"
                    )
                runs = len(config.methods) * len(config.train_sizes) * len(config.seeds)
                task = progress.add_task("runs", total=runs)
                results = study.run(
                    config, records, archs,
                    on_result=lambda r: progress.update(
                        task, advance=1, description=f"{r.method} n={r.train_size} s={r.seed}"
                    ),
                )  # fmt: skip
        out.mkdir(parents=True, exist_ok=True)
        (out / REPORT).write_text(study.render(results))
    stdout.print(f"wrote {out / REPORT}")


def _with_progress(
    study: Callable[..., Results[FewShotConfig, FewShotResult]], quiet: bool
) -> Results[FewShotConfig, FewShotResult]:
    """Run a few-shot study under a progress bar (pre-training epochs, then results)."""
    with progress_bar(quiet) as progress:
        task = progress.add_task("few-shot", total=None)

        def on_pretrain(pool: list[str]) -> Callable[[int, float, float | None], None]:
            return lambda epoch, loss, valid: progress.update(
                task, description=f"pre-training on {len(pool)} devices, epoch {epoch}"
            )

        return study(
            on_pretrain=on_pretrain,
            on_result=lambda r: progress.update(
                task, advance=1, description=f"{r.target} k={r.shots} {r.mode}"
            ),
        )


@app.command("few-shot")
def few_shot_command(
    ctx: typer.Context,
    space: Annotated[str, typer.Option("--space", "-s", help="nas-bench-201 or fbnet.")],
    train_file: Annotated[
        Path,
        typer.Option("--train-file", exists=True, dir_okay=False, help="Pre-train on this CSV."),
    ],
    target_file: Annotated[
        Path | None,
        typer.Option(
            "--target-file",
            exists=True,
            dir_okay=False,
            help="Adapt to this CSV's devices (default: the train file's, each left out in turn).",
        ),
    ] = None,
    train_devices: Annotated[
        str | None, typer.Option("--train-devices", help="Columns to pre-train on (default: all).")
    ] = None,
    target_devices: Annotated[
        str | None, typer.Option("--target-devices", help="Columns to adapt to (default: all).")
    ] = None,
    shots: Annotated[
        str, typer.Option("--shots", help="k values, comma-separated.")
    ] = "3,10,32,100",
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Draws of the k shots.")] = 1,
    modes: Annotated[
        str, typer.Option("--modes", help="shift, heads, all (comma-separated).")
    ] = "shift,heads,all",
    shot_choice: Annotated[
        str,
        typer.Option(
            "--shot-choice",
            help="random, or spread (one shot per latency bin, as HELP's reference archs).",
        ),
    ] = "random",
    train_archs: Annotated[
        int, typer.Option("--train-archs", min=1, help="Architectures per training device.")
    ] = 900,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Report folder: README.md and results.jsonl (resumes)."),
    ] = None,
    report_only: ReportOnlyOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Adapt a multi-device predictor to unseen devices from k samples (HELP, MAPLE).

    Pre-trains on the train file's devices (900 architectures each), adapts to each target
    device from k of its latencies and prints Acc(10 %), Acc(5 %), MAPE and Spearman on
    the target's other architectures. Example: `nnlat eval few-shot -s nas-bench-201
    --train-file help_latency_ms.csv --shots 3,10`.
    """
    from dataclasses import asdict

    from nnlat.datasets.published import read_latency_table
    from nnlat.studies import few_shot as study

    if report_only and out is None:
        raise typer.BadParameter("--report-only needs --out (the folder of results.jsonl)")
    config = study.FewShotConfig(
        train_devices=tuple(comma_list(train_devices)),
        target_devices=tuple(comma_list(target_devices)),
        shots=tuple(ints(shots)),
        seeds=tuple(range(seeds)),
        modes=tuple(comma_list(modes)),
        choice=shot_choice,
        train_archs=train_archs,
        results_path=out / RESULTS if out else None,
        pretrained_dir=study.pretrained_cache(),
        fit_missing=not report_only,
        command=command_line(ctx),
    )
    with user_errors():
        train = read_latency_table(train_file, space)
        target = read_latency_table(target_file, space) if target_file else train
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
        results = _with_progress(partial(study.run, config, train, target), as_json)
        if out is not None:
            (out / REPORT).write_text(study.render(results))
    rows = results.rows
    if as_json:
        print_json({"summary": study.summary(rows), "results": [asdict(r) for r in rows]})
        return
    table = Table("shots", "k", "mode", "devices", "Acc(10 %)", "Acc(5 %)", "MAPE", "Spearman")
    for row in study.summary(rows):
        table.add_row(
            row["choice"], str(row["shots"]), row["mode"], str(row["targets"]),
            f"{row['acc_10'] * 100:.1f}", f"{row['acc_5'] * 100:.1f}",
            f"{row['mape'] * 100:.1f} %", f"{row['spearman']:.3f}",
        )  # fmt: skip
    stdout.print(table)
    if out is not None:
        stdout.print(f"wrote {out / REPORT}")
