"""Evaluation results → Markdown tables and PNG plots for ``reports/``."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from nnlat.predictor.evaluation import FoldResult

METRIC_TITLES = {
    "mape": "MAPE ↓",
    "rmspe": "RMSPE ↓",
    "acc_1": "Acc(1 %) ↑",
    "acc_5": "Acc(5 %) ↑",
    "acc_10": "Acc(10 %) ↑",
}

UNSEEN_STRUCTURE_TITLE = "Unseen structure: leave one family out (NNLQP Table 3)"
ABLATION_TITLE = "Ablation: NNLP without node features / GNN / static features (NNLQP Table 4)"


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


def unseen_structure_markdown(
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
        f"# {title}",
        "",
        f"Command: `{command}`",
        "",
        f"Platform `{platform}`. For each family, every method is trained on the other",
        "families' records and tested on that family's. NNLP's checkpoint is chosen on a",
        "validation share of the training families; the test family is never looked at.",
        "",
    ]
    for metric in ("mape", "acc_10", "acc_5", "rmspe"):
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


def scatter_plot(results: Sequence[FoldResult], method: str, path: Path) -> None:
    """Predicted against measured latency, one panel per held-out family."""
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
