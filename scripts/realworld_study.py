"""The held-out real-world study of issue 33: train on zoo (+ corpus), test on shipped models.

Run (the database holds the training data and the held-out set measured by
``scripts/measure_heldout.py``; see reports/realworld/README.md for the full recipe):

    python scripts/realworld_study.py --db URL --out reports/realworld \\
        [--platform P] [--epochs 80] [--cached-only] [--predictor DIR ...]

1. ``nnlat eval held-out``'s study on the platform: each method (NNLP, XGBoost, the FLOPs
   regression) trained on each training set of zoo families, the corpus last, and tested
   on every real-world record (none of which any training set holds);
2. with ``--train DIR``, the shipped predictor retrained: NNLP on every platform's zoo and
   corpus records (one head each, platforms balanced), saved in DIR;
3. each saved predictor given, and DIR, judged on the same real-world records, per model.

``--dump-records FILE`` writes every record it loaded (all platforms) and stops;
``--records FILE --train DIR`` then trains from that file alone, on a machine without
the database (a lent GPU): it judges nothing there.

``--cached-only`` trains on the records whose features are already cached
(``scripts/cache_features.py``) instead of rebuilding every corpus graph (a ``transformers``
export each): the report says how many records that left.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from records_file import read_records, write_records

from nnlat.datasets.training import REALWORLD_PREFIX, default_cache_dir, load_records
from nnlat.features.records import REAL_WORLD
from nnlat.predictor.ensemble import load_saved
from nnlat.predictor.metrics import acc_within, mape
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.training import TrainSettings
from nnlat.store import Store
from nnlat.studies import held_out


def predictor_section(
    path: Path,
    records: list,  # type: ignore[type-arg]
    platform: str,
    partner: tuple[str, dict[str, float]] | None = None,
) -> list[str]:
    """Markdown: a saved predictor's errors on the real-world records of ``platform``.

    With ``partner`` (a study method's name and its prediction per model), also the
    geometric mean of the two predictions: the ensemble chosen on held-out families.
    """
    predictor = load_saved(path)
    test = [r for r in records if r.source == REAL_WORLD and r.platform == platform]
    head = platform
    if platform not in predictor.platforms:
        from nnlat.platform import match_platform

        head = match_platform(platform, predictor.platforms).head
    measured = np.array([r.latency_ms for r in test])
    predicted = predictor.predict_raw([r.raw for r in test], head)
    columns = {"predicted ms": predicted}
    if partner is not None:
        name, by_model = partner
        other = np.array([by_model[r.family] for r in test])
        columns[f"× {name} (geometric mean)"] = np.sqrt(predicted * other)
    lines = [
        f"## Saved predictor `{path}` ({predictor.info.get('name', '?')}, head {head})",
        "",
    ]
    for label, values in columns.items():
        lines.append(
            f"{label.removesuffix(' ms').capitalize()}: MAPE {mape(measured, values) * 100:.1f} %, "
            f"Acc(10 %) {acc_within(measured, values, 0.1) * 100:.0f} %, "
            f"Acc(25 %) {acc_within(measured, values, 0.25) * 100:.0f} % "
            f"over {len(test)} models."
        )
        lines.append("")
    lines += [
        "| model | measured ms | " + " | ".join(f"{c} (error)" for c in columns) + " |",
        "|---|---|" + "---|" * len(columns),
    ]
    for i, record in enumerate(test):
        cells = [f"{v[i]:.4g} ({v[i] / record.latency_ms - 1:+.0%})" for v in columns.values()]
        lines.append(f"| {record.family} | {record.latency_ms:.4g} | " + " | ".join(cells) + " |")
    return lines


def train_shipped(
    records: list,  # type: ignore[type-arg]
    out: Path,
    epochs: int,
    node_aux_weight: float = 0.0,
    seed: int = 0,
) -> None:
    """NNLP on every platform's non-real-world records, platforms balanced; saved in ``out``.

    ``seed`` seeds the validation split, the initial weights and the batch order: two seeds
    of one recipe show how much of a difference between recipes is training noise.
    """
    from nnlat.datasets.training import without_realworld

    train = without_realworld(records)
    settings = TrainSettings(
        epochs=epochs, balance_platforms=True, node_aux_weight=node_aux_weight, seed=seed
    )
    predictor, result = Predictor.fit(
        train,
        network="nnlp",
        settings=settings,
        on_epoch=lambda e, loss, v: print(f"epoch {e} loss {loss:.4f} valid {v}", flush=True),
    )
    counts = {p: sum(r.platform == p for r in train) for p in sorted({r.platform for r in train})}
    predictor.info |= {"name": "nnlat-zoo-corpus", "records_per_platform": counts, "seed": seed}
    predictor.save(out)
    print(f"saved {out}: best epoch {result.best_epoch}, valid MAPE {result.best_valid_mape}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="the measurement database (required without --records)")
    parser.add_argument("--records", type=Path, help="train from this records file alone")
    parser.add_argument("--dump-records", type=Path, help="write the loaded records, stop")
    parser.add_argument("--node-aux-weight", type=float, default=0.0)
    parser.add_argument("--out", type=Path, default=Path("reports/realworld"))
    parser.add_argument("--platform", default="epyc-ort1.32-fp32-t1")
    parser.add_argument("--methods", default="nnlp,xgboost,flops-macs-lr")
    parser.add_argument(
        "--training-sets",
        default=",".join(held_out.TRAINING_SETS),
        help="comma-separated names of held_out.TRAINING_SETS",
    )
    parser.add_argument("--epochs", type=int, default=80)
    parser.add_argument("--seed", type=int, default=0, help="of --train's split and weights")
    parser.add_argument("--cached-only", action="store_true")
    parser.add_argument("--predictor", type=Path, action="append", default=[])
    parser.add_argument("--train", type=Path, help="retrain the shipped predictor into DIR")
    parser.add_argument("--skip-study", action="store_true", help="only --train and judge")
    parser.add_argument(
        "--ensemble-with",
        help="a study method: also judge each saved predictor averaged with it (geometric "
        "mean; the method as trained on the last training set)",
    )
    args = parser.parse_args()
    if args.records:
        if not args.train:
            parser.error("--records trains only: give --train DIR")
        train_shipped(
            read_records(args.records), args.train, args.epochs, args.node_aux_weight, args.seed
        )
        return
    if not args.db:
        parser.error("give --db (or --records with --train)")

    with Store.open(args.db) as store:
        every = load_records(
            store,
            None if args.train or args.dump_records else [args.platform],
            cache_dir=default_cache_dir(),
            cached_only=args.cached_only,
        )
        if args.cached_only:  # the real-world models are stored whole: always loaded
            every = [r for r in every if r.source != REAL_WORLD]
            shipped = sorted(
                {m.family for m in store.list_models() if m.family.startswith(REALWORLD_PREFIX)}
            )
            every += load_records(store, [args.platform], shipped, cache_dir=default_cache_dir())
    if args.dump_records:
        write_records(args.dump_records, every)
        print(f"wrote {len(every)} records to {args.dump_records}")
        return
    records = [r for r in every if r.platform == args.platform]
    if args.train:
        train_shipped(every, args.train, args.epochs, args.node_aux_weight, args.seed)
        args.predictor.append(args.train)
    command = (
        "python scripts/realworld_study.py "
        + " ".join(
            f"--{k.replace('_', '-')} {v}"
            if not isinstance(v, bool)
            else f"--{k.replace('_', '-')}"
            for k, v in vars(args).items()
            if v not in (False, [], None) and k != "predictor"
        )
        + "".join(f" --predictor {p}" for p in args.predictor)
    )
    config = held_out.HeldOutConfig(
        platform=args.platform,
        methods=tuple(args.methods.split(",")),
        training_sets={n: held_out.TRAINING_SETS[n] for n in args.training_sets.split(",")},
        settings=TrainSettings(epochs=args.epochs),
        command=command,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    text = ""
    if not args.skip_study:
        study = held_out.run(
            config, records, on_result=lambda r: print(r.training_set, r.method, r.metrics)
        )
        text = held_out.render(study)
        held_out.plot(study.rows, args.out / "plot.png")
    partner = None
    if args.ensemble_with and not args.skip_study:
        row = [r for r in study.rows if r.method == args.ensemble_with][-1]
        partner = (
            f"{row.method} ({row.training_set})",
            dict(zip(row.models, row.predicted_ms, strict=True)),
        )
    for path in args.predictor:
        section = predictor_section(path, records, args.platform, partner)
        text += "\n" + "\n".join(section) + "\n"
    name = "README.md" if not args.skip_study else "predictors.md"
    (args.out / name).write_text(text)
    print(f"wrote {args.out / name}")


if __name__ == "__main__":
    main()
