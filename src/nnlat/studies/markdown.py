"""What every study's Markdown report shares: metric titles and number formats."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

METRIC_TITLES = {
    "mape": "MAPE ↓",
    "rmspe": "RMSPE ↓",
    "acc_1": "Acc(1 %) ↑",
    "acc_5": "Acc(5 %) ↑",
    "acc_10": "Acc(10 %) ↑",
    "acc_25": "Acc(25 %) ↑",
}


def header(title: str, command: str) -> list[str]:
    """The first lines of a report: its title and the exact command that made it.

    Example:
        >>> header("Study", "nnlat eval x")
        ['# Study', '', 'Command: `nnlat eval x`', '']
    """
    return [f"# {title}", "", f"Command: `{command}`", ""]


def mean_sd(values: Sequence[float]) -> str:
    """Fractions as percent: the mean ± the standard deviation (the value alone if one).

    Example:
        >>> mean_sd([0.5]), mean_sd([0.5, 0.7])
        ('50.0', '60.0 ± 14.1')
    """
    if len(values) == 1:
        return f"{values[0] * 100:.1f}"
    return f"{statistics.mean(values) * 100:.1f} ± {statistics.stdev(values) * 100:.1f}"
