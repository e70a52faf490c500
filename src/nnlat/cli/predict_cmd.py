"""``nnlat predict`` and ``nnlat train``: estimates from a learned predictor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from nnlat.cli.checks import check_model_file
from nnlat.cli.code_predict import is_code_reference, parse_init_args, predict_from_code
from nnlat.cli.config import check_configured_limits
from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.inspect_cmd import InputShapeOption
from nnlat.cli.output import (
    comma_list,
    parse_input_shapes,
    print_json,
    progress_bar,
    spinner,
    stderr,
    stdout,
    user_errors,
    whole_numbers,
)
from nnlat.cli.remote import ServerOption, TokenOption, client_of
from nnlat.errors import NnlatWarning

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
    models: Annotated[
        list[Path],
        typer.Argument(help="ONNX or TFLite files, or one path/to/model.py::ClassName."),
    ],
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
    target: Annotated[
        str,
        typer.Option("--target", "-t", help="What to predict: latency, memory or energy."),
    ] = "latency",
    init_args: Annotated[
        str | None,
        typer.Option("--init-args", help="For model.py::Class: constructor kwargs as JSON."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Predict the latency (or memory, energy) of MODELS on PLATFORM, without measuring.

    A model given as path/to/model.py::ClassName is predicted from its source code (the
    file is imported and the class built, as python would; never sent to a server).
    """
    import warnings

    if target not in _TARGETS:
        raise typer.BadParameter(f"--target {target!r}: expected {', '.join(_TARGETS)}")
    if server is not None and target != "latency":
        raise typer.BadParameter("--server predicts latency only")
    shapes = parse_input_shapes(input_shape)
    if any(is_code_reference(str(m)) for m in models):
        if len(models) != 1 or server is not None or target != "latency":
            raise typer.BadParameter(
                "a model.py::Class is predicted alone, locally, for latency only"
            )
        with user_errors(subject=str(models[0])):
            predict_from_code(
                str(models[0]), shapes, parse_init_args(init_args), platform, predictor, as_json
            )
        return
    if init_args is not None:
        raise typer.BadParameter("--init-args applies to a model.py::ClassName only")
    from nnlat.predictor.data_dependence import DATA_DEPENDENT_WORDS

    with user_errors(subject=models[0].name if len(models) == 1 else None):
        for model in models:
            check_model_file(model)
        with (
            spinner(f"predicting {_count(models)}", quiet=as_json),
            warnings.catch_warnings(record=True) as caught,
        ):
            warnings.simplefilter("always", NnlatWarning)
            # said below, model by model, with the model's name
            warnings.filterwarnings("ignore", ".*operators never seen in training")
            warnings.filterwarnings("ignore", ".*outside the training graphs")
            warnings.filterwarnings("ignore", f".*{DATA_DEPENDENT_WORDS}")
            if server is not None:
                with client_of(server, token) as client:
                    results = [client.predict(m, platform, batch_size, shapes) for m in models]
            elif (onboarded := _onboarded(platform, predictor, target)) is not None:
                results = _predict_onboarded(onboarded, models, batch_size)
            else:
                from nnlat.predictor.api import predict_many

                check_configured_limits(models, batch_size, shapes)
                results = predict_many(
                    models, platform, batch_size, shapes, predictor=predictor, target=target
                )
    for warning in caught:  # e.g. which head answers when the platform has none of its own
        stderr.print(f"[yellow]warning:[/] {escape(str(warning.message))}", highlight=False)
    for path, result in zip(models, results, strict=True):
        if result.unseen_ops:
            stderr.print(
                f"[yellow]warning:[/] {escape(path.name)}: operators never seen in training: "
                f"{', '.join(result.unseen_ops)} (the prediction is less reliable)",
                highlight=False,
            )
        if result.outside_training:
            stderr.print(
                f"[yellow]warning:[/] {escape(path.name)}: outside the training graphs: "
                f"{'; '.join(result.outside_training)} (the prediction extrapolates)",
                highlight=False,
            )
        if result.data_dependent:
            stderr.print(
                f"[yellow]warning:[/] {escape(path.name)}: {DATA_DEPENDENT_WORDS}: "
                f"{', '.join(result.data_dependent)}",
                highlight=False,
            )
    if as_json:
        print_json(
            {
                "platform": results[0].platform,
                "target": target,
                "batch_size": batch_size,
                "predictor": results[0].predictor,
                "predictions": [
                    {"model": str(path), **result.model_dump()}
                    for path, result in zip(models, results, strict=True)
                ],
            }
        )
        return
    what = "" if target == "latency" else f"{target} "
    stdout.print(
        f"predicted {what}on [bold]{results[0].platform}[/], batch {batch_size}", highlight=False
    )
    served = results[0].served_by
    head = f" (head of {served})" if served and served != results[0].platform else ""
    scaled = f", {results[0].calibration}" if results[0].calibration else ""
    stdout.print(f"by {results[0].predictor}{head}{scaled}", highlight=False)
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(no_wrap=True)  # the file names: never cut
    table.add_column(no_wrap=True, justify="right")
    for path, result in zip(models, results, strict=True):
        table.add_row(escape(path.name), f"[bold]{_shown(result.value, result.unit)}[/]")
    stdout.print(table)


_TARGETS = ("latency", "memory", "energy")


def _shown(value: float | None, unit: str) -> str:
    """A predicted value with its unit: ``1.234 ms``, ``395.3 KiB``, ``0.012 J``.

    Example:
        >>> _shown(1.2345, "ms"), _shown(404800.0, "bytes"), _shown(0.5, "J")
        ('1.234 ms', '395.3 KiB', '0.5000 J')
    """
    if value is None:
        return "n/a"
    if unit == "bytes":
        return f"{value / 1024:.1f} KiB"
    if unit == "J":
        return f"{value:.4f} J"
    return f"{value:.3f} {unit}"


def _onboarded(platform: str | None, predictor: Path | None, target: str) -> Any:
    """The saved ``nnlat onboard`` result for ``platform``, when no predictor was named."""
    if platform is None or predictor is not None or target != "latency":
        return None
    from nnlat.predictor.onboard import load

    return load(platform)


def _predict_onboarded(onboarded: Any, models: list[Path], batch_size: int) -> list[Any]:
    """Predictions of an onboarded platform (:mod:`nnlat.predictor.onboard`)."""
    import nnlat
    from nnlat.predictor.api import Prediction

    if batch_size != 1:
        raise typer.BadParameter(f"{onboarded.predictor} predicts batch 1 only")
    results = []
    for model in models:
        graph = nnlat.load(model)
        latency = onboarded.predict_ms(graph)
        results.append(
            Prediction(
                latency_ms=latency,
                platform=onboarded.platform,
                graph_hash=nnlat.graph_key(graph).digest,
                batch_size=1,
                unseen_ops=(),
                predictor=onboarded.predictor,
                served_by=onboarded.platform,
            )
        )
    return results


def _count(models: list[Path]) -> str:
    return models[0].name if len(models) == 1 else f"{len(models)} models"


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
    base: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Fine-tune this predictor (a directory, or `shipped`) instead of training "
            "a new one; platforms it lacks get a new head.",
        ),
    ] = None,
    part: Annotated[
        str,
        typer.Option("--part", help="With --from: train the `heads` only, or `all` parameters."),
    ] = "heads",
    network: Annotated[str, typer.Option("--network", help="Predictor network.")] = "nnlp",
    epochs: Annotated[
        int | None,
        typer.Option("--epochs", min=1, help="Most epochs (default: 150; 100 with --from)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of split, weights, order.")] = 0,
    seeds: Annotated[
        list[str] | None,
        typer.Option(
            "--seeds",
            help="Train one network per seed (comma-separated) and save them as an ensemble "
            "that answers with their geometric mean (instead of --seed).",
        ),
    ] = None,
    hidden: HiddenOption = None,
    train_batch: TrainBatchOption = 32,
    balance_platforms: Annotated[
        bool,
        typer.Option(
            "--balance-platforms",
            help="Weigh every platform alike in batches and checkpoint choice.",
        ),
    ] = False,
    node_aux_weight: Annotated[
        float,
        typer.Option(
            "--node-aux-weight",
            min=0.0,
            help="Weight of the auxiliary per-node target (each node's share of the "
            "profiled time; nnlp only; 0: off).",
        ),
    ] = 0.0,
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

    With --from, fine-tune an existing predictor instead (NNLQP transfer learning): a few
    dozen measurements on a new platform are enough for its new head. The real-world
    models of scripts/measure_realworld.py (family ``realworld:*``) are the held-out
    generalisation check and are left out.
    """
    from nnlat.datasets.training import default_cache_dir, load_records, without_realworld
    from nnlat.predictor import Predictor, TrainSettings
    from nnlat.predictor.ensemble import Ensemble, combined_result

    if bad := [item for item in note or [] if "=" not in item or item.startswith("=")]:
        raise typer.BadParameter(f"--note {bad[0]!r}: expected KEY=VALUE")
    seed_list = whole_numbers(seeds, "--seeds", distinct=True) if seeds else [seed]
    if seeds and base is not None:
        raise typer.BadParameter("--seeds trains new networks; with --from, use --seed")
    if part not in ("heads", "all"):
        raise typer.BadParameter(f"--part {part!r}: expected heads or all")
    notes = dict(item.partition("=")[::2] for item in note or [])

    with user_errors(), progress_bar(True) as progress:
        from nnlat.store import Store

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

        def on_epoch(epoch: int, loss: float, valid: float | None) -> None:
            shown = "training" if valid is None else f"training (valid MAPE {valid:.1%})"
            progress.update(epoch_task, completed=epoch, description=shown)

        info = {"name": name or out.name, **notes}
        if base is None:
            trained = []
            for member_seed in seed_list:
                settings = TrainSettings(
                    epochs=epochs or 150,
                    seed=member_seed,
                    batch_size=train_batch,
                    balance_platforms=balance_platforms,
                    node_aux_weight=node_aux_weight,
                )
                progress.update(epoch_task, total=settings.epochs, completed=0)
                member, member_result = Predictor.fit(
                    records,
                    network=network,
                    settings=settings,
                    config=hidden_config(hidden),
                    on_epoch=on_epoch,
                )
                member.info |= info
                trained.append((member, member_result))
            if len(trained) == 1:
                [(predictor, result)] = trained
            else:
                predictor = Ensemble([p for p, _ in trained], {"name": info["name"]})
                result = combined_result([r for _, r in trained])
        else:
            from nnlat.predictor.transfer import FINE_TUNE_SETTINGS

            progress.update(epoch_task, total=epochs or FINE_TUNE_SETTINGS.epochs)
            predictor, result = _fine_tune(base, records, part, epochs, seed, train_batch, on_epoch)
            predictor.info |= info
        predictor.save(out)
    summary = {
        "out": str(out),
        "from": base,
        "platforms": predictor.platforms,
        "records": len(records),
        "best_epoch": result.best_epoch,
        "best_valid_mape": result.best_valid_mape,
        "seconds": result.seconds,
        "seeds": seed_list if base is None else None,
    }
    if as_json:
        print_json(summary)
        return
    valid = "n/a" if result.best_valid_mape is None else f"{result.best_valid_mape:.2%}"
    what = f"fine-tuned {base}" if base else f"trained {network}"
    if len(seed_list) > 1 and base is None:
        what += f" × {len(seed_list)} (seeds {', '.join(map(str, seed_list))}: an ensemble)"
    stdout.print(f"{what} on {len(records)} records", highlight=False)
    stdout.print(f"platforms: {', '.join(predictor.platforms)}", highlight=False)
    stdout.print(f"validation MAPE {valid} at epoch {result.best_epoch}", highlight=False)
    stdout.print(f"saved to {out}", highlight=False)


def _fine_tune(
    base: str,
    records: list[Any],
    part: str,
    epochs: int | None,
    seed: int,
    train_batch: int,
    on_epoch: Any,
) -> tuple[Any, Any]:
    """``nnlat.predictor.transfer.fine_tune`` of the predictor at ``base`` on ``records``."""
    from nnlat.predictor.api import load_predictor
    from nnlat.predictor.ensemble import Ensemble
    from nnlat.predictor.transfer import FINE_TUNE_SETTINGS, fine_tune

    pretrained = load_predictor(None if base == "shipped" else base)
    settings = FINE_TUNE_SETTINGS.model_copy(
        update={
            "epochs": epochs or FINE_TUNE_SETTINGS.epochs,
            "seed": seed,
            "batch_size": train_batch,
        }
    )
    if isinstance(pretrained, Ensemble):
        return pretrained.fine_tuned(records, settings=settings, part=part, on_epoch=on_epoch)  # type: ignore[arg-type]
    return fine_tune(pretrained, records, settings=settings, part=part, on_epoch=on_epoch)  # type: ignore[arg-type]
