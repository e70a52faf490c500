"""Timed runs → statistics: summary, confidence interval of the median, stability, settling.

The figure nnlat reports is the **median** latency. Its 95 % confidence interval is
distribution-free: the interval between two order statistics ``x_(l) .. x_(n+1-l)``
covers the true median with probability ``P(l <= B <= n - l)``, ``B ~ Binomial(n, 1/2)``
(the number of samples below the median). ``l`` is the largest rank whose coverage is
still at least 95 %. No 95 % interval exists below 6 samples. Latency distributions
are skewed with a long right tail (interrupts, frequency changes), so a normal
approximation would be wrong where it matters.

Changing anything here changes how a number is produced: bump
:data:`~nnlat.measure.types.PROTOCOL_VERSION`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from nnlat.measure.types import LatencyStats

CONFIDENCE = 0.95
MIN_CI_SAMPLES = 6  # below this even [min, max] covers the median less than 95 % of the time
SETTLE_WINDOW = 5  # warm-up: compare the median of the last 5 runs ...
SETTLE_TOLERANCE = 0.02  # ... with the 5 before; within 2 % means settled


@functools.cache
def median_ci_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int] | None:
    """0-based ranks ``(lo, hi)`` of the sorted samples bounding the median's interval.

    Computed exactly with integer binomial coefficients (``n`` up to a few thousand is
    fast, and the result is cached).

    Args:
        n: number of samples.
        confidence: the coverage wanted, e.g. 0.95.

    Returns:
        ``(lo, hi)`` with ``hi = n - 1 - lo``, or None when ``n`` is too small for any
        interval to reach ``confidence``.

    Example:
        >>> median_ci_ranks(20)
        (5, 14)
        >>> median_ci_ranks(5) is None
        True
    """
    # Largest lo with P(B <= lo) <= (1 - confidence) / 2, compared exactly in integers
    # (2**n overflows a float for n > 1023).
    alpha = Fraction(1 - confidence).limit_denominator(10**6)
    budget = alpha.numerator * (1 << n)
    cdf = 0
    term = 1  # C(n, k), updated incrementally
    lo = -1
    for k in range(n // 2 + 1):
        if k:
            term = term * (n - k + 1) // k
        cdf += term
        if cdf * 2 * alpha.denominator > budget:
            break
        lo = k
    if lo < 0:
        return None
    return lo, n - 1 - lo


def median_ci95_halfwidth(samples_ms: Sequence[float]) -> float:
    """Half-width of the 95 % distribution-free confidence interval of the median, in ms.

    Returns ``inf`` when there are fewer than :data:`MIN_CI_SAMPLES` samples.

    Example:
        >>> median_ci95_halfwidth([float(x) for x in range(1, 21)])
        4.5
    """
    ranks = median_ci_ranks(len(samples_ms))
    if ranks is None:
        return math.inf
    ordered = sorted(samples_ms)
    return (ordered[ranks[1]] - ordered[ranks[0]]) / 2


def ci_target_met(samples_ms: Sequence[float], target_rel_ci: float) -> bool:
    """True when the median's 95 % half-width is within ``target_rel_ci`` of the median.

    Example:
        >>> ci_target_met([1.0] * 10, 0.01)
        True
        >>> ci_target_met([1.0, 2.0] * 10, 0.01)
        False
    """
    half = median_ci95_halfwidth(samples_ms)
    median = float(np.median(samples_ms)) if len(samples_ms) else 0.0
    return math.isfinite(half) and half <= target_rel_ci * median


def settled(
    samples_ms: Sequence[float],
    window: int = SETTLE_WINDOW,
    tolerance: float = SETTLE_TOLERANCE,
) -> bool:
    """Warm-up verdict: the median of the last ``window`` runs is within ``tolerance``
    (relative) of the median of the ``window`` runs before.

    Caches, allocator pools, lazily compiled kernels and the CPU clock make the first
    runs slower; once two consecutive windows agree, timing can start.

    Example:
        >>> settled([9.0, 5.0, 3.0, 2.0, 1.0, 1.0])
        False
        >>> settled([3.0, 2.0] + [1.0] * 10)
        True
    """
    if window < 1 or len(samples_ms) < 2 * window:
        return False
    last = float(np.median(samples_ms[-window:]))
    previous = float(np.median(samples_ms[-2 * window : -window]))
    return abs(last - previous) <= tolerance * previous


def summarize(samples_ms: Sequence[float], unstable_cv: float) -> LatencyStats:
    """Summary statistics of the timed runs.

    Percentiles interpolate linearly between order statistics; ``std_ms`` is the sample
    standard deviation (``ddof=1``); ``cv = std / mean``; ``median_ci95_ms`` is the
    half-width of the 95 % interval of the median, or half the range when there are too
    few samples for one (see :data:`MIN_CI_SAMPLES`).

    Args:
        samples_ms: timed latencies in milliseconds (at least one).
        unstable_cv: a coefficient of variation above this marks the result unstable.

    Returns:
        The :class:`~nnlat.measure.types.LatencyStats`.

    Raises:
        ValueError: no samples.

    Example:
        >>> s = summarize([1.0, 1.0, 1.0, 1.0, 2.0], unstable_cv=0.1)
        >>> s.median_ms, s.max_ms, s.stable
        (1.0, 2.0, False)
    """
    if len(samples_ms) == 0:
        raise ValueError("cannot summarize zero samples")
    x = np.asarray(samples_ms, dtype=np.float64)
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if len(x) > 1 else 0.0
    cv = std / mean if mean > 0 else 0.0
    half = median_ci95_halfwidth(samples_ms)
    if not math.isfinite(half):
        half = float(x.max() - x.min()) / 2
    p50, p90, p99 = (float(v) for v in np.percentile(x, [50, 90, 99]))
    return LatencyStats(
        n=len(x),
        mean_ms=mean,
        median_ms=p50,
        p90_ms=p90,
        p99_ms=p99,
        std_ms=std,
        cv=cv,
        min_ms=float(x.min()),
        max_ms=float(x.max()),
        median_ci95_ms=half,
        stable=cv <= unstable_cv,
    )
