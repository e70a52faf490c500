"""Resource limits on untrusted models: what a model may ask of nnlat before it is refused.

A 200-byte ONNX file can describe a ``Range(0, 2**40, 1)``, a Conv with a 2**62 kernel or
an input of 2**50 elements; shape inference, constant folding and input allocation would
try to honour it and exhaust memory. Every model is checked against one :class:`Limits`
value, passed in (the defaults suit any real network); a model over a limit is refused
with a :class:`~nnlat.errors.LimitExceededError` that names the limit, its value and the
``NNLAT_*`` variable the CLI and the server read it from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

from nnlat.errors import LimitExceededError

DEFAULT_MAX_MODEL_BYTES = 2 * 1024**3  # protobuf's own limit for one message

GiB = 1 << 30


@dataclass(frozen=True)
class Limits:
    """Bounds on what one model may cost to load, normalise and measure.

    Attributes:
        max_nodes: nodes in the model, sub-graphs included.
        max_graph_depth: nesting of sub-graphs (an ``If`` inside a ``Loop`` is 2).
        max_subgraphs: sub-graphs (``If`` branches, ``Loop`` bodies) in all; every pass
            walks each, and nested ``If`` s sharing a branch double them at every level.
        max_tensor_elements: elements of any one tensor whose shape is known (1.1e12
            for the ``Range`` bomb; the largest activation of a real network at batch
            256 is under 1e10).
        max_value_elements: elements of a 0-D or 1-D tensor whose values shape
            inference may compute (ONNX's data propagation holds each value as a
            protobuf message, ~40 bytes an element; real shape vectors have a few).
        max_inference_bytes: memory a forked shape inference may use, where the model
            could make ONNX's data propagation allocate without bound.
        max_inference_s: time a forked shape inference may take.
        max_input_bytes: the random inputs allocated for one measurement.
        max_weight_bytes: the random weights a weight-free model is given to run.

    Example:
        >>> Limits(max_nodes=10).max_nodes
        10
        >>> Limits().check("max_nodes", 11, "the model has 11 nodes")
        >>> try:
        ...     Limits(max_nodes=10).check("max_nodes", 11, "the model has 11 nodes")
        ... except LimitExceededError as exc:
        ...     print(exc)
        the model has 11 nodes, over the limit max_nodes=10 (raise it with NNLAT_MAX_NODES)
    """

    max_nodes: int = 1_000_000
    max_graph_depth: int = 16
    max_subgraphs: int = 1000
    max_tensor_elements: int = 1 << 36
    max_value_elements: int = 1 << 20
    max_inference_bytes: int = GiB // 4
    max_inference_s: float = 120.0
    max_input_bytes: int = 8 * GiB
    max_weight_bytes: int = 32 * GiB

    def __post_init__(self) -> None:
        for f in fields(self):
            if getattr(self, f.name) <= 0:
                raise ValueError(f"{f.name} must be positive, got {getattr(self, f.name)}")

    def check(self, name: str, value: int | float, what: str | Callable[[], str]) -> None:
        """Refuse ``value`` if it is over the limit ``name``.

        Args:
            name: a field of this class.
            value: the model's figure.
            what: what the figure is, as the start of the message; a callable is called
                only when the limit is exceeded (for checks run on every tensor, where
                formatting each message would cost more than the check).

        Raises:
            LimitExceededError: ``value`` is over the limit.
        """
        if value > getattr(self, name):
            raise self.error(name, what() if callable(what) else what)

    def error(self, name: str, what: str) -> LimitExceededError:
        """The error saying ``what`` is over the limit ``name``."""
        return exceeded(name, getattr(self, name), what)


def exceeded(name: str, limit: int | float, what: str) -> LimitExceededError:
    """The error saying ``what`` is over the limit ``name`` of value ``limit``.

    Example:
        >>> print(exceeded("max_nodes", 10, "the model has 11 nodes"))
        the model has 11 nodes, over the limit max_nodes=10 (raise it with NNLAT_MAX_NODES)
    """
    shown = f"{limit:g}" if isinstance(limit, float) else str(limit)
    return LimitExceededError(
        f"{what}, over the limit {name}={shown} (raise it with NNLAT_{name.upper()})"
    )


DEFAULT_LIMITS = Limits()
