"""Unseen structure (NNLQP Table 3) and its ablation (Table 4): leave one family out.

For each family, train every method on the other families' records of one platform and
test on that family's. Every method sees exactly the same split; graph networks pick
their checkpoint on a validation share of the *training* families. Each finished
(family, method) result is appended to a JSON-Lines file as soon as it exists, so a
stopped evaluation resumes where it stopped, and ``fit_missing=False`` rebuilds the
report from that file alone.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import acc_within, accuracy_report
from nnlat.predictor.training import TrainSettings
from nnlat.studies.markdown import METRIC_TITLES, header
from nnlat.studies.methods import METHODS, MethodContext
from nnlat.studies.results import Results, read_jsonl, record_result

UNSEEN_STRUCTURE_TITLE = "Unseen structure: leave one family out (NNLQP Table 3)"
ABLATION_TITLE = "Ablation: NNLP without node features / GNN / static features (NNLQP Table 4)"
ABLATION_METHODS = ("nnlp", "nnlp-wo-node", "nnlp-wo-gnn", "nnlp-wo-static")

# Called when a (family, method) result is done.
OnResult = Callable[["FoldResult"], None]


@dataclass(frozen=True)
class UnseenStructureConfig:
    """What to evaluate.

    Attributes:
        platform: the platform evaluated (other platforms' records are ignored).
        methods: names registered in :data:`~nnlat.studies.methods.METHODS`.
        families: the families held out in turn (default: every family in the records,
            or in the results file when nothing is fitted).
        settings: graph networks' training (its seed also seeds the baselines).
        config: hyper-parameters of the configurable networks (``--hidden``).
        results_path: JSON-Lines file; results already there are kept and not redone.
        fit_missing: False only collects what ``results_path`` already holds (to rebuild
            a report while folds are still running elsewhere).
        title: the report's title (the ablation is the same protocol).
        command: the command that ran the study, for the report.
        plot: the scatter plot's file name, beside the report.
    """

    platform: str
    methods: tuple[str, ...]
    families: tuple[str, ...] | None = None
    settings: TrainSettings = field(default_factory=TrainSettings)
    config: Mapping[str, object] = field(default_factory=dict)
    results_path: Path | None = None
    fit_missing: bool = True
    title: str = UNSEEN_STRUCTURE_TITLE
    command: str = ""
    plot: str = "unseen_structure.png"


@dataclass(frozen=True)
class FoldResult:
    """One method on one held-out family.

    Attributes:
        family: the held-out (test) family.
        method: ``nnlp`` or a baseline name.
        platform: the platform of the records.
        train_records, test_records: sizes of the split.
        metrics: MAPE, RMSPE, Acc(1/5/10 %) as fractions.
        fit_seconds: training time.
        predict_seconds_per_graph: prediction time per test graph.
        measured_ms, predicted_ms: per test record, for scatter plots.
        epochs: the most training epochs a graph network was given (None for the
            baselines, and in results saved before it was recorded).
    """

    family: str
    method: str
    platform: str
    train_records: int
    test_records: int
    metrics: dict[str, float]
    fit_seconds: float
    predict_seconds_per_graph: float
    measured_ms: list[float]
    predicted_ms: list[float]
    epochs: int | None = None


def seed_ensemble(runs: Sequence[Sequence[FoldResult]], method: str) -> list[FoldResult]:
    """``method``'s folds of several seeds combined: per test record, the geometric mean
    of the seeds' predictions (an ensemble of the seeds' predictors, N times the cost).

    Every run must hold every family the first one holds, on the same test records.

    Example:
        >>> a = FoldResult("vgg", "nnlp", "p", 9, 2, {}, 1.0, 0.001, [1.0, 2.0], [1.0, 1.0])
        >>> b = FoldResult("vgg", "nnlp", "p", 9, 2, {}, 2.0, 0.001, [1.0, 2.0], [4.0, 4.0])
        >>> (fold,) = seed_ensemble([[a], [b]], "nnlp")
        >>> fold.method, fold.predicted_ms, fold.metrics["acc_10"], fold.fit_seconds
        ('nnlp ×2', [2.0, 2.0], 0.5, 3.0)

    Raises:
        NnlatError: a run misses a family, or its test records differ.
    """
    folds = [{r.family: r for r in run if r.method == method} for run in runs]
    if not folds or not folds[0]:
        raise NnlatError(f"no {method!r} results to combine")
    combined = []
    for family, first in sorted(folds[0].items()):
        members = [run[family] for run in folds if family in run]
        if len(members) < len(folds) or any(m.measured_ms != first.measured_ms for m in members):
            raise NnlatError(f"{method} on {family}: not every run has the same test records")
        predicted = np.exp(np.mean([np.log(m.predicted_ms) for m in members], axis=0))
        combined.append(
            replace(
                first,
                method=f"{method} ×{len(members)}",
                metrics=accuracy_report(first.measured_ms, predicted),
                fit_seconds=sum(m.fit_seconds for m in members),
                predict_seconds_per_graph=sum(m.predict_seconds_per_graph for m in members),
                predicted_ms=predicted.tolist(),
            )
        )
    return combined


def read_results(path: Path) -> list[FoldResult]:
    """The results saved so far in a JSON-Lines file (none if it does not exist)."""
    return read_jsonl(path, FoldResult)


def fit_and_time(
    method: str,
    train: Sequence[LatencyRecord],
    test: Sequence[LatencyRecord],
    context: MethodContext,
) -> tuple[np.ndarray, float, float]:
    """Fit ``method`` on ``train``; return (predictions for ``test``, fit s, predict s).

    Raises:
        UnknownNameError: ``method`` is not registered.
    """
    estimator = METHODS.get(method).build(context)
    start = time.perf_counter()
    estimator.fit(train)
    fitted = time.perf_counter()
    predicted = np.asarray(estimator.predict(test), dtype=np.float64)
    return predicted, fitted - start, time.perf_counter() - fitted


def run(
    config: UnseenStructureConfig,
    records: Sequence[LatencyRecord],
    *,
    on_result: OnResult | None = None,
) -> Results[UnseenStructureConfig, FoldResult]:
    """Leave-one-family-out evaluation on ``config.platform``.

    Returns:
        The (family, method) results of the families × methods asked for, those loaded
        from ``results_path`` included, grouped by method in ``methods`` order; the
        config's ``families`` filled in.

    Raises:
        NnlatError: no records on the platform, or a family without records.
        UnknownNameError: an unknown method.
    """
    for method in config.methods:
        METHODS.get(method)  # an unknown name fails before any training
    results = read_results(config.results_path) if config.results_path else []
    mine = [r for r in records if r.platform == config.platform]
    if config.fit_missing and not mine:
        raise NnlatError(f"no records on platform {config.platform!r}")
    known = mine or [r for r in results if r.platform == config.platform]
    families = config.families or tuple(sorted({r.family for r in known}))
    done = {(r.family, r.method) for r in results if r.platform == config.platform}
    context = MethodContext(settings=config.settings, config=config.config)
    for family in families if config.fit_missing else ():
        test = [r for r in mine if r.family == family]
        train = [r for r in mine if r.family != family]
        if not test:
            raise NnlatError(f"no records of family {family!r} on {config.platform!r}")
        for method in config.methods:
            if (family, method) in done:
                continue
            predicted, fit_s, predict_s = fit_and_time(method, train, test, context)
            measured = [r.latency_ms for r in test]
            result = FoldResult(
                family=family,
                method=method,
                platform=config.platform,
                train_records=len(train),
                test_records=len(test),
                metrics={
                    **accuracy_report(measured, predicted),
                    "acc_25": acc_within(measured, predicted, 0.25),
                },
                fit_seconds=fit_s,
                predict_seconds_per_graph=predict_s / len(test),
                measured_ms=measured,
                predicted_ms=predicted.tolist(),
                epochs=config.settings.epochs if METHODS.get(method).trains_epochs else None,
            )
            record_result(results, result, config.results_path, on_result)
    wanted = [r for r in results if r.platform == config.platform and r.family in families]
    rows = [r for method in config.methods for r in wanted if r.method == method]
    return Results(replace(config, families=families), rows, len(mine))


def metric_table(
    results: Sequence[FoldResult],
    metric: str,
    methods: Sequence[str] | None = None,
    families: Sequence[str] | None = None,
) -> list[str]:
    """Markdown lines: one row per held-out family, one column per method, then averages.

    ``methods`` and ``families`` (default: those in ``results``) fix the columns and
    rows; a fold without a result shows "–".

    Example:
        >>> r = FoldResult("resnet", "nnlp", "p", 9, 1, {"mape": 0.1}, 1.0, 0.001, [1.0], [1.1])
        >>> metric_table([r], "mape")[2]
        '| resnet | 10.00 % |'
    """
    methods = list(methods or dict.fromkeys(r.method for r in results))
    families = sorted(families or {r.family for r in results})
    value = {(r.family, r.method): r.metrics[metric] for r in results}
    lines = ["| test family | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for family in families:
        cells = [
            f"{value[family, m] * 100:.2f} %" if (family, m) in value else "–" for m in methods
        ]
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    # Averages compare like with like: only families every method has a result for.
    common = [f for f in families if all((f, m) in value for m in methods)]
    if len(common) > 1:
        averages = [
            f"**{statistics.mean(value[f, m] for f in common) * 100:.2f} %**" for m in methods
        ]
        label = "average" if len(common) == len(families) else f"average of {len(common)}"
        lines.append(f"| **{label}** | " + " | ".join(averages) + " |")
    if len(common) < len(families):  # also each method over all the folds it has
        own = []
        for m in methods:
            column = [value[f, m] for f in families if (f, m) in value]
            own.append(f"{statistics.mean(column) * 100:.2f} % ({len(column)})" if column else "–")
        lines.append("| average of own folds (n) | " + " | ".join(own) + " |")
    return lines


def _missing_folds(
    results: Sequence[FoldResult], methods: Sequence[str], families: Sequence[str]
) -> str:
    """The (method: families) pairs absent from ``results``, as text ("" if none)."""
    have = {(r.family, r.method) for r in results}
    gaps = {m: [f for f in sorted(families) if (f, m) not in have] for m in methods}
    return "; ".join(f"{m} on {', '.join(fs)}" for m, fs in gaps.items() if fs)


def markdown(
    results: Sequence[FoldResult],
    command: str,
    methods: Sequence[str] | None = None,
    families: Sequence[str] | None = None,
    title: str = UNSEEN_STRUCTURE_TITLE,
    plot: str = "unseen_structure.png",
) -> str:
    """The whole unseen-structure report (Table 3 on our data), or another leave-one-out
    comparison under another ``title`` (the ablation of Table 4).

    ``methods`` and ``families`` are the folds asked for (default: those in
    ``results``); the report names the ones without a result. ``plot`` is the scatter
    plot's file name, beside the report.
    """
    methods = list(methods or dict.fromkeys(r.method for r in results))
    families = sorted(families or {r.family for r in results})
    platform = results[0].platform if results else "?"
    lines = [
        *header(title, command),
        f"Platform `{platform}`. For each family, every method is trained on the other",
        "families' records and tested on that family's. NNLP's checkpoint is chosen on a",
        "validation share of the training families; the test family is never looked at.",
        "",
    ]
    # Acc(25 %) where every result has it (results saved before it was kept lack it).
    with_25 = ("acc_25",) if results and all("acc_25" in r.metrics for r in results) else ()
    for metric in ("mape", "acc_10", *with_25, "acc_5", "rmspe"):
        table = metric_table(results, metric, methods, families)
        lines += [f"## {METRIC_TITLES[metric]}", "", *table, ""]
    timing = {}
    for r in results:
        timing.setdefault(r.method, []).append((r.fit_seconds, r.predict_seconds_per_graph))
    lines += [
        "## Time",
        "",
        "| method | fit s (mean) | predict ms / graph (mean) |",
        "|---|---|---|",
    ]
    for method, pairs in timing.items():
        fit = statistics.mean(p[0] for p in pairs)
        per_graph = statistics.mean(p[1] for p in pairs) * 1e3
        lines.append(f"| {method} | {fit:.1f} | {per_graph:.3f} |")
    epochs = {r.method: r.epochs for r in results if r.epochs is not None}
    if epochs:
        given = ", ".join(f"{m} {n}" for m, n in epochs.items())
        lines += ["", f"Most training epochs (early stopping on validation MAPE): {given}."]
    missing = _missing_folds(results, methods, families)
    if missing:
        lines += ["", f"Folds not run: {missing}. Averages cover the families every method has."]
    lines += ["", f"![predicted vs measured]({plot})", ""]
    return "\n".join(lines)


def render(results: Results[UnseenStructureConfig, FoldResult]) -> str:
    """The whole report (Markdown): the tables of every metric, times, missing folds."""
    config = results.config
    return markdown(
        results.rows, config.command, config.methods, config.families, config.title, config.plot
    )


def scatter_plot(results: Sequence[FoldResult], method: str, path: Path) -> None:
    """Predicted against measured latency, one panel per held-out family (PNG at ``path``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    chosen = sorted((r for r in results if r.method == method), key=lambda r: r.family)
    if not chosen:
        return
    cols = min(5, len(chosen))
    rows = (len(chosen) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.2 * rows), squeeze=False)
    for ax, result in zip(axes.ravel(), chosen, strict=False):
        ax.scatter(result.measured_ms, result.predicted_ms, s=6)
        values = [*result.measured_ms, *result.predicted_ms]
        low, high = min(values) * 0.9, max(values) * 1.1
        ax.plot([low, high], [low, high], color="red", linewidth=0.8)
        ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high))
        ax.set_title(f"{result.family}: MAPE {result.metrics['mape']:.1%}", fontsize=9)
        ax.tick_params(labelsize=7)
        # Plain 1-2-5 labels: matplotlib labels minor ticks of a log axis spanning less
        # than a decade as "2×10^0" and so on, which overlap.
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            axis.set_minor_formatter(NullFormatter())
    for ax in axes.ravel()[len(chosen) :]:
        ax.axis("off")
    fig.supxlabel("measured ms")
    fig.supylabel(f"{method} predicted ms")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
