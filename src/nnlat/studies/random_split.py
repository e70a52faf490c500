"""Random split: train on 80 % of the graphs, choose the checkpoint on 10 %, test on 10 %.

The in-distribution counterpart of :mod:`nnlat.studies.unseen_structure`: for each seed,
the records of one platform are split by graph (every record of a graph on one side),
``test_fraction`` of the graphs for testing; graph networks hold out ``valid_fraction``
of the *training* graphs for early stopping (the settings' own share), so 1/9 of the
rest gives 80/10/10. Every method sees the same split for a seed. Results are appended
to a JSON-Lines file as they come; a stopped study resumes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import acc_within, accuracy_report
from nnlat.predictor.training import TrainSettings, split_by_graph
from nnlat.studies.markdown import METRIC_TITLES, header
from nnlat.studies.methods import METHODS, MethodContext
from nnlat.studies.results import Results, read_jsonl, record_result

TITLE = "Random split: 80 % train, 10 % validation, 10 % test"
METRICS = ("mape", "acc_10", "acc_25")

# Called when a (seed, method) result is done.
OnResult = Callable[["SplitResult"], None]


@dataclass(frozen=True)
class RandomSplitConfig:
    """What to evaluate.

    Attributes:
        platform: the platform evaluated (other platforms' records are ignored).
        methods: names registered in :data:`~nnlat.studies.methods.METHODS`.
        seeds: one split (and training seed) each.
        families: only records of these families (default: all).
        test_fraction: share of graphs tested on.
        settings: graph networks' training; its ``valid_fraction`` is a share of the
            training graphs, and its seed is replaced by each of ``seeds``.
        config: hyper-parameters of the configurable networks.
        results_path: JSON-Lines file; results already there are kept and not redone.
        fit_missing: False only collects what ``results_path`` already holds (to rebuild
            the report without the database).
        command: the command that ran the study, for the report.
    """

    platform: str
    methods: tuple[str, ...]
    seeds: tuple[int, ...] = (0,)
    families: tuple[str, ...] | None = None
    test_fraction: float = 0.1
    settings: TrainSettings = field(default_factory=lambda: TrainSettings(valid_fraction=1 / 9))
    config: Mapping[str, object] = field(default_factory=dict)
    results_path: Path | None = None
    fit_missing: bool = True
    command: str = ""


@dataclass(frozen=True)
class SplitResult:
    """One method on one seed's test split.

    Attributes:
        seed: the split's (and training's) seed.
        method: a method name.
        platform: the platform of the records.
        train_records, test_records: sizes of the split (validation inside train).
        metrics: :func:`~nnlat.predictor.metrics.accuracy_report` of the test records.
        fit_seconds: training time.
        epochs: the most epochs a graph network was given (None for baselines).
        best_epoch: the epoch a graph network kept (None for baselines).
        measured_ms, predicted_ms: per test record.
    """

    seed: int
    method: str
    platform: str
    train_records: int
    test_records: int
    metrics: dict[str, float]
    fit_seconds: float
    epochs: int | None
    best_epoch: int | None
    measured_ms: list[float]
    predicted_ms: list[float]


def run(
    config: RandomSplitConfig,
    records: Sequence[LatencyRecord],
    *,
    on_result: OnResult | None = None,
) -> Results[RandomSplitConfig, SplitResult]:
    """Every method on every seed's random split of ``config.platform``'s records.

    Raises:
        NnlatError: no records on the platform (in the families asked for).
        UnknownNameError: an unknown method.

    Example:
        >>> from nnlat.testing.records import TOY_PLATFORM, toy_records
        >>> study = run(RandomSplitConfig(TOY_PLATFORM, ("flops-lr",), test_fraction=0.25),
        ...             toy_records())
        >>> [(r.method, r.test_records) for r in study.rows]
        [('flops-lr', 3)]
    """
    for method in config.methods:
        METHODS.get(method)  # an unknown name fails before any training
    results = read_jsonl(config.results_path, SplitResult) if config.results_path else []
    wanted = set(config.families or ())
    mine = [
        r for r in records if r.platform == config.platform and (not wanted or r.family in wanted)
    ]
    if config.fit_missing and not mine:
        raise NnlatError(f"no records on platform {config.platform!r}")
    done = {(r.seed, r.method) for r in results if r.platform == config.platform}
    for seed in config.seeds if config.fit_missing else ():
        settings = config.settings.model_copy(update={"seed": seed})
        context = MethodContext(settings=settings, config=config.config)
        train_idx, test_idx = split_by_graph(
            [r.graph_hash for r in mine], config.test_fraction, seed + 1
        )
        train, test = [mine[i] for i in train_idx], [mine[i] for i in test_idx]
        for method in config.methods:
            if (seed, method) in done:
                continue
            estimator = METHODS.get(method).build(context)
            start = time.perf_counter()
            estimator.fit(train)
            fit_s = time.perf_counter() - start
            predicted = np.asarray(estimator.predict(test), dtype=np.float64)
            measured = [r.latency_ms for r in test]
            trained = getattr(estimator, "train_result_", None)
            result = SplitResult(
                seed=seed,
                method=method,
                platform=config.platform,
                train_records=len(train),
                test_records=len(test),
                metrics={
                    **accuracy_report(measured, predicted),
                    "acc_25": acc_within(measured, predicted, 0.25),
                },
                fit_seconds=fit_s,
                epochs=settings.epochs if METHODS.get(method).trains_epochs else None,
                best_epoch=trained.best_epoch if trained is not None else None,
                measured_ms=measured,
                predicted_ms=predicted.tolist(),
            )
            record_result(results, result, config.results_path, on_result)
    rows = [
        r
        for method in config.methods
        for r in results
        if r.method == method and r.platform == config.platform and r.seed in config.seeds
    ]
    return Results(config, rows, len(mine))


def render(study: Results[RandomSplitConfig, SplitResult]) -> str:
    """The report: per metric, a row per seed and a column per method, then the mean."""
    config, rows = study.config, study.rows
    methods = list(config.methods)
    value = {(r.seed, r.method): r.metrics for r in rows}
    lines = [
        *header(TITLE, config.command),
        f"Platform `{config.platform}`; "
        + (f"{study.inputs} records" if study.inputs else "records as in the results file")
        + (f" of {', '.join(config.families)}" if config.families else "")
        + f". Graphs split at random per seed: {config.test_fraction:.0%} tested on; graph "
        f"networks choose their checkpoint on {config.settings.valid_fraction:.1%} of the "
        "rest (validation MAPE); the test graphs are never looked at.",
        "",
    ]
    for metric in METRICS:
        lines += [
            f"## {METRIC_TITLES.get(metric, metric)}",
            "",
            "| seed | " + " | ".join(methods) + " |",
            "|---" * (len(methods) + 1) + "|",
        ]
        for seed in config.seeds:
            cells = [
                f"{value[seed, m][metric] * 100:.2f} %" if (seed, m) in value else "–"
                for m in methods
            ]
            lines.append(f"| {seed} | " + " | ".join(cells) + " |")
        common = [s for s in config.seeds if all((s, m) in value for m in methods)]
        if len(common) > 1:
            means = [
                f"**{statistics.mean(value[s, m][metric] for s in common) * 100:.2f} %**"
                for m in methods
            ]
            lines.append("| **mean** | " + " | ".join(means) + " |")
        lines.append("")
    kept = [f"{r.method} seed {r.seed}: {r.best_epoch}/{r.epochs}" for r in rows if r.epochs]
    if kept:
        lines += ["Epoch kept (chosen on validation MAPE) / most epochs: " + "; ".join(kept), ""]
    return "\n".join(lines)
