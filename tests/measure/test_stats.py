"""Statistics of the timed runs: median CI by order statistics, CV, stability, settling."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nnlat.measure.stats import (
    MIN_CI_SAMPLES,
    ci_target_met,
    median_ci95_halfwidth,
    median_ci_ranks,
    settled,
    summarize,
)


def _coverage(n: int, lo: int) -> float:
    """P(lo < B <= n - 1 - lo) for B ~ Binomial(n, 1/2): the coverage of [x_lo, x_{n-1-lo}]."""
    tail = sum(math.comb(n, k) for k in range(lo + 1)) / 2**n
    return 1 - 2 * tail


@pytest.mark.parametrize(
    ("n", "ranks"),
    [(6, (0, 5)), (10, (1, 8)), (20, (5, 14)), (50, (17, 32)), (100, (39, 60))],
)
def test_median_ci_ranks_match_the_binomial_tables(n: int, ranks: tuple[int, int]) -> None:
    # 1-based ranks of the textbook tables: n=20 → x(6)..x(15), n=100 → x(40)..x(61).
    assert median_ci_ranks(n) == ranks


def test_no_interval_below_six_samples() -> None:
    assert all(median_ci_ranks(n) is None for n in range(MIN_CI_SAMPLES))
    assert median_ci95_halfwidth([1.0, 2.0, 3.0, 4.0, 5.0]) == math.inf


@pytest.mark.parametrize("n", [6, 7, 13, 31, 64, 99, 250, 1000, 2000])
def test_median_ci_is_the_tightest_with_95_percent_coverage(n: int) -> None:
    ranks = median_ci_ranks(n)
    assert ranks is not None
    lo, hi = ranks
    assert hi == n - 1 - lo
    assert _coverage(n, lo) >= 0.95
    assert lo + 1 > (n - 1) // 2 or _coverage(n, lo + 1) < 0.95


def test_halfwidth_uses_order_statistics_not_the_spread() -> None:
    samples = [float(x) for x in range(1, 21)]  # ranks 5 and 14 → 6.0 and 15.0
    assert median_ci95_halfwidth(samples) == pytest.approx(4.5)
    # Shuffled input, same answer; one huge outlier does not move the interval.
    rng = np.random.default_rng(0)
    shuffled = list(rng.permutation(samples))
    assert median_ci95_halfwidth(shuffled) == pytest.approx(4.5)
    assert median_ci95_halfwidth([*samples[:-1], 1e6]) == pytest.approx(4.5)


def test_ci_target() -> None:
    assert ci_target_met([10.0] * 6, 0.01)
    assert not ci_target_met([10.0] * 5, 0.01)  # too few samples for any 95 % interval
    assert not ci_target_met([9.0, 11.0] * 10, 0.01)
    assert ci_target_met([9.0, 11.0] * 10, 0.2)
    assert not ci_target_met([], 0.01)


def test_summarize_values() -> None:
    samples = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 100.0]
    s = summarize(samples, unstable_cv=0.1)
    x = np.array(samples)
    assert s.n == 10
    assert s.mean_ms == pytest.approx(x.mean())
    assert s.median_ms == pytest.approx(5.5)
    assert s.p90_ms == pytest.approx(np.percentile(x, 90))
    assert s.p99_ms == pytest.approx(np.percentile(x, 99))
    assert s.std_ms == pytest.approx(x.std(ddof=1))
    assert s.cv == pytest.approx(x.std(ddof=1) / x.mean())
    assert (s.min_ms, s.max_ms) == (1.0, 100.0)
    assert s.median_ci95_ms == pytest.approx((9.0 - 2.0) / 2)  # ranks (1, 8)
    assert not s.stable


def test_stable_flag_follows_the_cv_threshold() -> None:
    samples = [10.0, 10.5, 9.5, 10.0, 10.2, 9.8]
    cv = summarize(samples, unstable_cv=1.0).cv
    assert summarize(samples, unstable_cv=cv + 1e-9).stable
    assert not summarize(samples, unstable_cv=cv - 1e-9).stable


def test_summarize_few_samples() -> None:
    one = summarize([3.0], unstable_cv=0.1)
    assert (one.n, one.std_ms, one.cv, one.median_ci95_ms, one.stable) == (1, 0.0, 0.0, 0.0, True)
    three = summarize([1.0, 2.0, 4.0], unstable_cv=0.1)
    assert math.isfinite(three.median_ci95_ms)  # half the range, not inf: JSON-safe
    assert three.median_ci95_ms == pytest.approx(1.5)
    with pytest.raises(ValueError, match="zero samples"):
        summarize([], unstable_cv=0.1)


def test_settled() -> None:
    assert not settled([1.0] * 9)  # needs two full windows of 5
    assert settled([1.0] * 10)
    assert not settled([8.0, 4.0, 2.0, 1.5, 1.2, 1.1, 1.0, 1.0, 1.0, 1.0])
    # Window medians 1.00 vs 1.019: within 2 %; 1.00 vs 1.03: not.
    assert settled([1.0] * 5 + [1.019] * 5)
    assert not settled([1.0] * 5 + [1.03] * 5)
    # Only the last two windows count: a slow start is forgiven.
    assert settled([50.0, 20.0, *([1.0] * 10)])
    assert settled([1.0] * 4, window=2, tolerance=0.0)
