"""Synthetic NAS-Bench-201 cells and a made-up device whose latency is exactly additive.

Several test modules need architecture strings spread over the space and latencies
that a good predictor can learn exactly; they share these.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from nnlat.predictor.baselines.cell_encoding import TIMED_OPS, op_counts
from nnlat.zoo.nasbench201 import arch_string

CELL_OPS = TIMED_OPS
"""The operations the spread cells draw from (``none`` left out: it costs nothing)."""

ADDITIVE_MS = np.array([0.1, 0.5, 1.5, 0.3, 0.2, 0.7, 1.9, 0.4, 0.3, 0.9, 2.4, 0.5, 2.0])
"""Milliseconds per operation (in :data:`CELL_OPS` order) in each of the three stages,
then a constant: the columns of :func:`~nnlat.predictor.baselines.cell_encoding.op_counts`."""


def cell_arch(ops: Sequence[str]) -> str:
    """The architecture string of a cell whose six edges carry ``ops``, in edge order.

    Example:
        >>> cell_arch(["nor_conv_3x3"] + ["skip_connect"] * 5)[:30]
        '|nor_conv_3x3~0|+|skip_connect'
    """
    a, b, c, d, e, f = ops
    return arch_string([[(a, 0)], [(b, 0), (c, 1)], [(d, 0), (e, 1), (f, 2)]])


def spread_archs(count: int, stride: int) -> list[str]:
    """``count`` architectures: every ``stride``-th cell over :data:`CELL_OPS`, in order.

    Example:
        >>> len(spread_archs(3, 97)), len(set(spread_archs(3, 97)))
        (3, 3)
    """
    cells = itertools.islice(itertools.product(CELL_OPS, repeat=6), 0, count * stride, stride)
    return [cell_arch(ops) for ops in cells]


def additive_ms(arch: str, per_op: np.ndarray = ADDITIVE_MS) -> float:
    """The latency of ``arch`` on a device costing ``per_op`` ms per operation and stage.

    Example:
        >>> round(additive_ms(cell_arch(["skip_connect"] * 6)), 2)
        5.6
    """
    return float(op_counts(arch) @ per_op)
