"""Accuracy of latency predictions: MAPE, RMSPE and Acc(δ) (NNLQP Appendix C).

Every function takes measured and predicted latencies (any unit, the same for both)
as array-likes of equal length and returns a fraction (0.05 = 5 %).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import spearmanr

ArrayLike = Sequence[float] | np.ndarray


def _relative_errors(measured: ArrayLike, predicted: ArrayLike) -> np.ndarray:
    y = np.asarray(measured, dtype=np.float64)
    p = np.asarray(predicted, dtype=np.float64)
    if y.shape != p.shape or y.size == 0:
        raise ValueError(f"need two equal, non-empty arrays, got {y.shape} and {p.shape}")
    return (p - y) / y


def mape(measured: ArrayLike, predicted: ArrayLike) -> float:
    """Mean absolute percentage error.

    Example:
        >>> mape([10.0, 20.0], [11.0, 18.0])
        0.1
    """
    return float(np.mean(np.abs(_relative_errors(measured, predicted))))


def rmspe(measured: ArrayLike, predicted: ArrayLike) -> float:
    """Root mean squared percentage error.

    Example:
        >>> round(rmspe([10.0, 20.0], [11.0, 18.0]), 4)
        0.1
    """
    return float(np.sqrt(np.mean(_relative_errors(measured, predicted) ** 2)))


def acc_within(measured: ArrayLike, predicted: ArrayLike, delta: float) -> float:
    """Acc(δ): the fraction of predictions within ``delta`` relative error.

    Example:
        >>> acc_within([10.0, 20.0, 30.0], [10.5, 25.0, 30.0], 0.10)
        0.6666666666666666
    """
    return float(np.mean(np.abs(_relative_errors(measured, predicted)) <= delta + 1e-12))


def accuracy_report(measured: ArrayLike, predicted: ArrayLike) -> dict[str, float]:
    """MAPE, RMSPE and Acc(1 %, 5 %, 10 %) in one dict (the columns of nnlat's tables).

    Example:
        >>> sorted(accuracy_report([1.0], [1.0]))
        ['acc_1', 'acc_10', 'acc_5', 'mape', 'rmspe']
    """
    return {
        "mape": mape(measured, predicted),
        "rmspe": rmspe(measured, predicted),
        "acc_1": acc_within(measured, predicted, 0.01),
        "acc_5": acc_within(measured, predicted, 0.05),
        "acc_10": acc_within(measured, predicted, 0.10),
    }


def spearman(measured: ArrayLike, predicted: ArrayLike) -> float:
    """Spearman's rank correlation; 0 for a constant prediction (it ranks nothing).

    Example:
        >>> spearman([1.0, 2.0, 3.0], [10.0, 30.0, 20.0])
        0.5
        >>> spearman([1.0, 2.0], [5.0, 5.0])
        0.0
    """
    if np.ptp(np.asarray(predicted, dtype=np.float64)) == 0:
        return 0.0
    return float(spearmanr(measured, predicted).statistic)
