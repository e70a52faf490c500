"""Keyword-spotting primitives priced where a network runs them, not alone (issue 31).

A primitive estimated alone (:func:`nnlat.zoo.edge.cnn_kws.primitive_networks`) pays what
a layer inside a network does not: on an NPU whose arena lives in DRAM it reads its input
and writes its output off chip, and nothing overlaps its weight transfer. There a whole
spotter costs 0.13–0.44 times its layers' sum (``reports/maple/findings.md``). So each
primitive is also estimated *in context*: placed between two neighbours of the space's
own kinds (a depthwise layer between two pointwise layers of its width, a pointwise layer
between two 3×3 depthwise layers of its input and output widths, the first convolution
followed by a 3×3 depthwise layer, the head after a pointwise layer), and its cost read
from Vela's per-layer table: the rows of the primitive's own operators, as a share of
Vela's inference time. The neighbours are fixed by the primitive's sizes, never by an
architecture of the study.

The result, per device, maps each primitive name to milliseconds; it is stored beside the
descriptors (``data/maple/kws_context.json``) and composed by
:func:`nnlat.studies.maple_spaces.compose_kws` under the ``context`` pricing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from nnlat.measure.types import NpuLayer
from nnlat.zoo.edge import cnn_kws
from nnlat.zoo.edge.net import Net

T = TypeVar("T")
_WINDOW = (3, 3)  # the neighbours' depthwise window


def _map(nn: Net[T], channels: int) -> T:
    return nn.input(cnn_kws.feature_map(channels))


def _pointwise(nn: Net[T], x: T, channels: int) -> T:
    return nn.conv2d(x, channels, (1, 1), 1, "valid", "relu")


def _depthwise(nn: Net[T], x: T, window: tuple[int, int]) -> T:
    return nn.depthwise_conv2d(x, window, 1, "same", "relu")


def _first(nn: Net[T], time: int, freq: int, channels: int) -> T:
    frames, coefficients = cnn_kws.FRAMES, cnn_kws.COEFFICIENTS
    x = nn.reshape(nn.input((1, frames * coefficients)), (1, frames, coefficients, 1))
    return _depthwise(nn, nn.conv2d(x, channels, (time, freq), 2, "same", "relu"), _WINDOW)


def _dw(nn: Net[T], time: int, freq: int, channels: int) -> T:
    x = _pointwise(nn, _map(nn, channels), channels)
    return _pointwise(nn, _depthwise(nn, x, (time, freq)), channels)


def _pw(nn: Net[T], c_in: int, c_out: int) -> T:
    x = _depthwise(nn, _map(nn, c_in), _WINDOW)
    return _depthwise(nn, _pointwise(nn, x, c_out), _WINDOW)


def _head(nn: Net[T], channels: int) -> T:
    x = nn.average_pool(_pointwise(nn, _map(nn, channels), channels))
    x = nn.conv2d(x, cnn_kws.NUM_CLASSES, (1, 1), 1, "valid", None)
    return nn.reshape(x, (1, cnn_kws.NUM_CLASSES))


_IN_CONTEXT: dict[str, Callable[..., object]] = {
    "first": _first,
    "dw": _dw,
    "pw": _pw,
    "head": _head,
}


def _is_depthwise(layer: NpuLayer) -> bool:
    return layer.original_operator.lower().startswith("depthwise")


# Which rows of the per-layer table are the primitive's own, per kind.
_OWN_ROWS: dict[str, Callable[[Sequence[NpuLayer]], list[NpuLayer]]] = {
    "first": lambda rows: [r for r in rows if not _is_depthwise(r)],
    "dw": lambda rows: [r for r in rows if _is_depthwise(r)],
    "pw": lambda rows: [r for r in rows if not _is_depthwise(r)],
    "head": lambda rows: list(rows[1:]),
}


def tflite_of(network: Callable[[Any], Any]) -> bytes:
    """The int8 ``.tflite`` of a one-argument ``network(nn)`` (the direct writer)."""
    from nnlat.zoo.edge.int8_net import write_int8

    return write_int8(lambda _config, nn: network(nn), None)


def context_networks() -> dict[str, Callable[[Net[T]], T]]:
    """Each primitive of :func:`~nnlat.zoo.edge.cnn_kws.primitive_networks` between its neighbours.

    Example:
        >>> networks = context_networks()
        >>> len(networks), sorted(networks) == sorted(cnn_kws.primitive_networks())
        (264, True)
    """
    return {
        name: cnn_kws.bind_sizes(_IN_CONTEXT[kind], size)
        for name, (kind, size) in cnn_kws.primitive_sizes().items()
    }


def characterise_in_context(platform: str) -> dict[str, float]:
    """Every primitive's in-context latency (ms) on the Vela platform ``platform``.

    Raises:
        UnknownPlatformError: not a Vela platform offered.
        VelaRejectedError: Vela refused a network.
    """
    from nnlat.measure.backends.vela import VelaBackend, estimate

    target = VelaBackend().target(platform)
    found = {}
    for name, build in context_networks().items():
        result = estimate(tflite_of(build), target)
        own = _OWN_ROWS[name.split("_")[0]](result.layers)
        share = sum(r.cycles for r in own) / result.cycles_total
        found[name] = 1e3 * result.inference_time_s * share
    return found
