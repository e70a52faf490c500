"""``nnlat eval maple``: hardware descriptors and few-shot adaptation on the Vela pool (MAPLE)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.eval_options import ReportOnlyOption, app, command_line, ints
from nnlat.cli.output import comma_list, stdout, user_errors

RESULTS = "results.jsonl"
REPORT = "README.md"


@app.command("maple")
def maple_command(
    ctx: typer.Context,
    descriptors: Annotated[
        Path | None,
        typer.Option(
            help="Descriptors JSON: completed for missing pool devices, then read "
            "[default: the space's, data/maple/descriptors.json or kws_descriptors.json].",
            show_default=False,
        ),
    ] = None,
    methods: Annotated[
        str | None,
        typer.Option(
            "--methods",
            "-m",
            help="Comma-separated, of nnlat.studies.maple.METHODS, or <base>@<pricing> "
            "[default: every method the space runs, nnlp-ft aside].",
            show_default=False,
        ),
    ] = None,
    shots: Annotated[str, typer.Option("--shots", help="k values, comma-separated.")] = "3,10",
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Draws of the k shots.")] = 2,
    steps: Annotated[int, typer.Option("--steps", min=1, help="Regressor training steps.")] = 400,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Report folder: README.md, results.jsonl, PNG.")
    ] = Path("reports/maple"),
    table: Annotated[
        Path | None,
        typer.Option(help="Read the latencies from this CSV (data/maple's) instead of --db."),
    ] = None,
    nnlp_folds: Annotated[
        int,
        typer.Option(min=2, help="nnlp-ft: device groups left out (one pre-training each)."),
    ] = 4,
    nnlp_epochs: Annotated[int, typer.Option(min=1, help="nnlp-ft: pre-training epochs.")] = 30,
    family: Annotated[
        str,
        typer.Option(help="The search space: nasbench201-int8 or cnn-kws."),
    ] = "nasbench201-int8",
    report_only: ReportOnlyOption = False,
    db: DbUrlOption = None,
) -> None:
    """Leave each pool NPU out, adapt from k latencies, compare MAPLE, HELP-style and LUT.

    Reads the campaign of scripts/maple_campaign.sh (NAS-Bench-201, int8, on the sixteen
    Vela devices of nnlat.measure.pool; or --family cnn-kws) from --db, or its export from
    --table. Example: `nnlat eval maple --table data/maple/nb201_vela_pool.csv --shots 3,10`.
    """
    import os

    from nnlat.measure.pool import VELA_POOL, pool_config
    from nnlat.studies import maple as study
    from nnlat.studies.maple_spaces import space_of

    os.environ.setdefault("NNLAT_VELA_CONFIG", str(pool_config()))
    try:
        descriptors = descriptors or space_of(family).descriptors
        chosen = tuple(comma_list(methods)) if methods else study.default_methods(family)
        for method in chosen:
            study.method_pricing(method)
        study.check_space(family, chosen)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    config = study.MapleConfig(
        db=db or "",
        descriptors=str(descriptors),
        devices=VELA_POOL,
        methods=chosen,
        shots=tuple(ints(shots)),
        seeds=seeds,
        steps=steps,
        out=str(out / RESULTS),
        table=None if table is None else str(table),
        nnlp_folds=nnlp_folds,
        nnlp_epochs=nnlp_epochs,
        family=family,
    )
    out.mkdir(parents=True, exist_ok=True)
    with user_errors():
        if report_only:
            results = study.saved(config)
        else:
            if db is None and table is None:
                raise typer.BadParameter("--db or --table is needed (the campaign's latencies)")
            study.characterise_pool(
                VELA_POOL,
                descriptors,
                on_device=lambda p: stdout.print(f"characterised {p}", highlight=False),
                family=family,
            )
            if any(study.method_pricing(m)[1] == "context" for m in chosen):
                from nnlat.studies.maple_spaces import characterise_pool_in_context

                space = space_of(family)
                characterise_pool_in_context(
                    VELA_POOL,
                    space.in_context(),
                    descriptors.parent / space.context.name,
                    on_device=lambda p: stdout.print(f"in context: {p}", highlight=False),
                )
            results = study.run(
                config,
                on_result=lambda r: stdout.print(
                    f"{study.short_name(r.device)} {r.method} k={r.shots} seed={r.seed}: "
                    f"Acc(10 %) {r.acc_10:.3f}, MAPE {r.mape:.1%} ({r.seconds:.0f} s)",
                    highlight=False,
                ),
            )
        report = study.report(results, out, command_line(ctx))
    (out / REPORT).write_text(report)
    stdout.print(f"wrote {out / REPORT}")
