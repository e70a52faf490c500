"""``nnlat predict`` and ``nnlat train``: estimates from a learned predictor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.inspect_cmd import InputShapeOption
from nnlat.cli.output import (
    comma_list,
    parse_input_shapes,
    print_json,
    progress_bar,
    stdout,
    user_errors,
)
from nnlat.cli.remote import ServerOption, TokenOption, client_of

HiddenOption = Annotated[
    int | None,
    typer.Option("--hidden", min=1, help="Width of the network's layers (default: its own)."),
]


def hidden_config(hidden: int | None) -> dict[str, object] | None:
    """The network overrides of ``--hidden`` (None keeps the network's defaults)."""
    return {"hidden": hidden} if hidden else None


TrainBatchOption = Annotated[
    int, typer.Option("--train-batch", min=1, help="Graphs per training batch.")
]
PredictorOption = Annotated[
    Path | None,
    typer.Option("--predictor", help="A saved predictor directory (default: the shipped one)."),
]


def predict_command(
    models: Annotated[list[Path], typer.Argument(help="ONNX files.")],
    platform: Annotated[
        str | None,
        typer.Option(
            "--platform", "-p", help="A platform the predictor knows (default: its first)."
        ),
    ] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", "-b", help="Batch size.")] = 1,
    input_shape: InputShapeOption = None,
    predictor: PredictorOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Predict the latency of MODELS on PLATFORM, without measuring (batched)."""
    from nnlat.predictor.api import predict_many

    shapes = parse_input_shapes(input_shape)
    with user_errors():
        if server is not None:
            with client_of(server, token) as client:
                results = [client.predict(m, platform, batch_size, shapes) for m in models]
        else:
            results = predict_many(models, platform, batch_size, shapes, predictor=predictor)
    if as_json:
        payloads = [r.model_dump() for r in results]
        print_json(payloads[0] if len(payloads) == 1 else payloads)
        return
    for path, result in zip(models, results, strict=True):
        stdout.print(
            f"[bold]{path.name}[/] on [bold]{result.platform}[/] (batch {result.batch_size}): "
            f"[bold]{result.latency_ms:.3f} ms[/] predicted"
        )


def train_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to save the predictor in.")],
    platforms: Annotated[
        list[str] | None,
        typer.Option("--platform", "-p", help="Train on these platforms only (comma-separated)."),
    ] = None,
    families: Annotated[
        list[str] | None,
        typer.Option("--family", "-f", help="Train on these families only (comma-separated)."),
    ] = None,
    network: Annotated[str, typer.Option("--network", help="Predictor network.")] = "nnlp",
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="Most epochs.")] = 150,
    seed: Annotated[int, typer.Option("--seed", help="Seed of split, weights, order.")] = 0,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    balance_platforms: Annotated[
        bool,
        typer.Option(
            "--balance-platforms",
            help="Weigh every platform alike in batches and checkpoint choice.",
        ),
    ] = False,
    name: Annotated[
        str | None, typer.Option("--name", help="Name kept in the predictor (default: OUT's).")
    ] = None,
    note: Annotated[
        list[str] | None,
        typer.Option("--note", help="KEY=VALUE kept in the predictor's info (repeatable)."),
    ] = None,
    db: DbUrlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Train a predictor on the database's measurements (one head per platform).

    The real-world models of scripts/measure_realworld.py (family ``realworld:*``) are the
    held-out generalisation check and are left out.
    """
    from nnlat.datasets.training import default_cache_dir, load_records, without_realworld
    from nnlat.predictor import Predictor, TrainSettings
    from nnlat.store import Store

    if bad := [item for item in note or [] if "=" not in item or item.startswith("=")]:
        raise typer.BadParameter(f"--note {bad[0]!r}: expected KEY=VALUE")
    notes = dict(item.partition("=")[::2] for item in note or [])

    with (
        user_errors(),
        progress_bar(True) as progress,
    ):
        with Store.open(db) as store:
            task = progress.add_task("features", total=None)
            records = load_records(
                store,
                comma_list(platforms) or None,
                comma_list(families) or None,
                cache_dir=default_cache_dir(),
                on_record=lambda done, total: progress.update(task, completed=done, total=total),
            )
        records = without_realworld(records)
        epoch_task = progress.add_task("training", total=epochs)
        predictor, result = Predictor.fit(
            records,
            network=network,
            settings=TrainSettings(
                epochs=epochs,
                seed=seed,
                batch_size=train_batch,
                balance_platforms=balance_platforms,
            ),
            config=hidden_config(hidden),
            on_epoch=lambda epoch, loss, valid: progress.update(
                epoch_task,
                completed=epoch,
                description=f"training (valid MAPE {valid:.1%})"
                if valid is not None
                else "training",
            ),
        )
        predictor.info |= {"name": name or out.name, **notes}
        predictor.save(out)
    summary = {
        "out": str(out),
        "platforms": predictor.platforms,
        "records": len(records),
        "best_epoch": result.best_epoch,
        "best_valid_mape": result.best_valid_mape,
        "seconds": result.seconds,
    }
    if as_json:
        print_json(summary)
        return
    valid = "n/a" if result.best_valid_mape is None else f"{result.best_valid_mape:.2%}"
    stdout.print(
        f"trained {network} on {len(records)} records ({', '.join(predictor.platforms)}): "
        f"validation MAPE {valid} at epoch {result.best_epoch}; saved to {out}"
    )
