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


def metric_table(results: Sequence[FoldResult], metric: str) -> list[str]:
    """Markdown lines: one row per held-out family, one column per method, then averages.

    Example:
        >>> r = FoldResult("resnet", "nnlp", "p", 9, 1, {"mape": 0.1}, 1.0, 0.001, [1.0], [1.1])
        >>> metric_table([r], "mape")[2]
        '| resnet | 10.00 % |'
    """
    methods = list(dict.fromkeys(r.method for r in results))
    families = sorted({r.family for r in results})
    value = {(r.family, r.method): r.metrics[metric] for r in results}
    lines = ["| test family | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for family in families:
        cells = [
            f"{value[family, m] * 100:.2f} %" if (family, m) in value else "–" for m in methods
        ]
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    if len(families) > 1:
        averages = []
        for m in methods:
            column = [value[f, m] for f in families if (f, m) in value]
            averages.append(f"**{statistics.mean(column) * 100:.2f} %**" if column else "–")
        lines.append("| **average** | " + " | ".join(averages) + " |")
    return lines


def unseen_structure_markdown(results: Sequence[FoldResult], command: str) -> str:
    """The whole unseen-structure report (Table 3 on our data)."""
    platform = results[0].platform if results else "?"
    lines = [
        "# Unseen structure: leave one family out (NNLQP Table 3)",
        "",
        f"Command: `{command}`",
        "",
        f"Platform `{platform}`. For each family, every method is trained on the other",
        "families' records and tested on that family's. NNLP's checkpoint is chosen on a",
        "validation share of the training families; the test family is never looked at.",
        "",
    ]
    for metric in ("mape", "acc_10", "acc_5", "rmspe"):
        lines += [f"## {METRIC_TITLES[metric]}", "", *metric_table(results, metric), ""]
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
    lines += ["", "![predicted vs measured](unseen_structure.png)", ""]
    return "\n".join(lines)


def scatter_plot(results: Sequence[FoldResult], method: str, path: Path) -> None:
    """Predicted against measured latency, one panel per held-out family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    for ax in axes.ravel()[len(chosen) :]:
        ax.axis("off")
    fig.supxlabel("measured ms")
    fig.supylabel(f"{method} predicted ms")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
