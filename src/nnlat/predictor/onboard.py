"""K-shot onboarding of a new platform: characterise it, measure K models, adapt, save.

MAPLE (Abbasi et al., CVPRW 2022) adapts to a device from three measurements because it
first *describes* the device by running primitive operations on it. :func:`onboard` does
that for a Vela (Ethos-U) platform, for *any* int8 TFLite model rather than one search
space:

1. **characterise**: every workload of :data:`WORKLOADS` — one operator kind each (3×3 and
   1×1 convolution, depthwise convolution, dense, a weight-streaming dense at batch 1,
   batched matmul, element-wise add, average pool, softmax, slice), at two or three
   sizes, alone and (most kinds) as a chain of :data:`CHAIN`, written by the direct int8
   writer, no TensorFlow — is estimated by Vela on the platform. Per kind, a line through
   the sizes gives the device's rate (MACs, bytes or parameters per ms) and the fixed time
   each operator pays (:func:`characterise`); the chain gives what an operator costs
   inside a network rather than as a whole model;
2. **measure** K models of nnlat's choice (:data:`SHOT_MODELS`: EdgeDLPerf-space networks
   at fixed seeds, in an order that mixes convolutional and attention networks);
3. **adapt**: a model's estimate is the sum over its operators of
   ``max(t(kind, MACs), t("weights", parameters))`` for a compute operator and
   ``t(kind, bytes)`` for a data-moving one, ``t(kind, x) = fixed(kind) + x / rate(kind)``
   (:func:`roofline_ms`), times one scale: the median measured / estimated ratio of the
   K shots — what the isolated operators miss (cascading, operators Vela fuses);
4. **save** the descriptor (rates and fixed times), the scale and the shots as JSON in
   the user's predictor directory (:func:`onboarded_dir`), where ``nnlat predict -p
   PLATFORM`` finds it.

One generic path for every kind and every device, no per-device or per-space branch: the
device enters only through what its workloads measured and the K shots, so a
configuration outside the pool (another memory mode, a slow DRAM) is handled as the pool's.

CPU platforms would need a timing descriptor (each workload timed on a quiet core) and
timing of the K models; that is not implemented, and :func:`onboard` says so.

Example:
    >>> sorted(WORKLOADS)[:3]
    ['add', 'add_small', 'avgpool']
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nnlat.errors import NnlatError

ONBOARD_DIR_ENV = "NNLAT_ONBOARD_DIR"
ONBOARD_VERSION = 2
SHOT_MODELS = (
    ("cnn-kws", 900_001),
    ("cnn-cifar10", 900_002),
    ("vit-cifar100", 900_003),
    ("cnn-kws", 900_004),
    ("cnn-cifar10", 900_005),
    ("vit-cifar100", 900_006),
    ("cnn-kws", 900_007),
    ("cnn-cifar10", 900_008),
    ("vit-cifar100", 900_009),
    ("cnn-cifar10", 900_010),
)
"""(family, sampling seed) of the models measured for onboarding, the first K taken."""

KINDS = (
    "conv",
    "depthwise",
    "matmul",
    "batch_matmul",
    "softmax",
    "slice",
    "pool",
    "bytes",
    "weights",
)
FREE_OPS = frozenset(
    {"Relu", "Clip", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Pad", "Gelu"}
)
"""Operators that cost nothing on the NPU: fused activations (a TFLite fused ReLU loads as
its own node; Vela runs GELU as a look-up table on the producer's output), views, and PAD,
which Vela folds into the next convolution's padding — its per-layer table lists no time
for any of them."""
# Costed by the bytes they move at their own rate (a slice by the bytes it keeps).
_BYTE_KINDS = {
    "Softmax": "softmax",
    "tflite:STRIDED_SLICE": "slice",
    "Slice": "slice",
    "AveragePool": "pool",
    "GlobalAveragePool": "pool",
}
_BYTE_RATES = frozenset({*_BYTE_KINDS.values(), "bytes"})


Network = Callable[[Any, int], Any]
"""A workload: ``(nn, depth)`` → the output of ``depth`` operators of one kind in a chain
(``nn`` a ``nnlat.zoo.edge.net.Net``)."""


def _conv(size: int, channels: int, kernel: int) -> Network:
    def network(nn: Any, depth: int) -> Any:
        x = nn.input((1, size, size, channels))
        for _ in range(depth):
            x = nn.conv2d(x, channels, (kernel, kernel), 1, "same", "relu")
        return x

    return network


def _depthwise(size: int, channels: int) -> Network:
    def network(nn: Any, depth: int) -> Any:
        x = nn.input((1, size, size, channels))
        for _ in range(depth):
            x = nn.depthwise_conv2d(x, (3, 3), 1, "same", "relu")
        return x

    return network


def _dense(tokens: int, width: int) -> Network:
    def network(nn: Any, depth: int) -> Any:
        x = nn.input((1, tokens, width) if tokens else (1, width))
        for _ in range(depth):
            x = nn.dense(x, width)
        return x

    return network


def _add(size: int, channels: int) -> Network:
    def network(nn: Any, depth: int) -> Any:
        x = nn.input((1, size, size, channels))
        for _ in range(depth):
            x = nn.add(x, x)
        return x

    return network


def _batch_matmul(tokens: int) -> Network:
    def network(nn: Any, depth: int) -> Any:
        x = nn.input((1, tokens, tokens))
        for _ in range(depth):
            x = nn.batch_matmul(x, x, transpose_y=True)
        return _inner(nn, x)

    return network


def _softmax(tokens: int) -> Network:
    def network(nn: Any, depth: int) -> Any:
        x = nn.input((1, tokens, tokens))
        for _ in range(depth):
            x = nn.softmax(x)
        return x

    return network


def _avgpool(size: int, channels: int) -> Network:
    return lambda nn, _depth: nn.average_pool(nn.input((1, size, size, channels)))


def _slice(tokens: int, width: int) -> Network:
    return lambda nn, _depth: _inner(nn, nn.slice_last(nn.input((1, tokens, 3 * width)), 0, width))


def _inner(nn: Any, x: Any) -> Any:
    """``x`` followed by a reshape (free on the NPU), so that ``x`` is not the graph's
    output: nnlat infers no shape for the output of these TFLite-only operators, and a
    workload needs its operator's MACs and output bytes."""
    return nn.reshape(x, tuple(x.shape))


WORKLOADS: dict[str, tuple[Network, str, bool]] = {
    "conv3x3": (_conv(32, 32, 3), "conv", True),
    "conv3x3_small": (_conv(8, 16, 3), "conv", True),
    "conv1x1": (_conv(32, 64, 1), "conv", True),
    "conv1x1_small": (_conv(8, 32, 1), "conv", True),
    "conv1x1_wide": (_conv(8, 256, 1), "conv", True),
    "depthwise": (_depthwise(32, 64), "depthwise", True),
    "depthwise_small": (_depthwise(8, 32), "depthwise", True),
    "depthwise_wide": (_depthwise(8, 256), "depthwise", True),
    "dense": (_dense(64, 256), "matmul", True),
    "dense_small": (_dense(16, 64), "matmul", True),
    "batch_matmul": (_batch_matmul(64), "batch_matmul", True),
    "batch_matmul_small": (_batch_matmul(16), "batch_matmul", True),
    "weights": (_dense(0, 1024), "weights", True),
    "weights_small": (_dense(0, 256), "weights", True),
    "add": (_add(32, 64), "bytes", True),
    "add_small": (_add(8, 32), "bytes", True),
    "softmax": (_softmax(64), "softmax", True),
    "softmax_small": (_softmax(16), "softmax", True),
    "avgpool": (_avgpool(32, 64), "pool", False),
    "avgpool_small": (_avgpool(8, 32), "pool", False),
    "slice": (_slice(64, 64), "slice", False),
    "slice_small": (_slice(16, 32), "slice", False),
}
"""name → (network, the kind it measures, whether it is measured in a chain).

Two sizes per kind, a small one and one of the size networks use: a line through them
gives the rate and the fixed time every operator of that kind pays on the device (command
setup, a DMA's latency), which one size alone folds into the rate — wrong for the many
small operators of keyword-spotting networks. Convolutions and depthwise convolutions have
a third, *wide* one (an 8×8 map, 256 channels): the late layers of real networks do few
MACs per weight or per input byte, and a rate from large maps alone overstates them. A
chained kind is measured alone and as a chain of :data:`CHAIN` operators; the difference
is what one more operator costs *inside* a network, where its input and output stay in
the working memory, rather than what a one-operator model costs with its input and output
in the arena (off-chip on a dedicated-SRAM configuration). Pools and slices run once, near
the graph's ends, and are measured alone."""
CHAIN = 3


@dataclass(frozen=True)
class Onboarding:
    """What onboarding saved for a platform.

    Attributes:
        platform: the platform's name.
        shots: K, how many models were measured.
        rates: kind (:data:`KINDS`) → effective rate on the device (MACs, bytes or
            parameters per ms).
        overheads: kind → the fixed time (ms) each operator of that kind pays.
        scale: median measured / roofline ratio over the shots.
        shot_models: ``family:seed`` of the measured models.
        shot_ms: their measured latencies (ms).
        created: UNIX time of the onboarding.
        seconds: wall time it took.
    """

    platform: str
    shots: int
    rates: dict[str, float]
    overheads: dict[str, float]
    scale: float
    shot_models: tuple[str, ...]
    shot_ms: tuple[float, ...]
    created: float
    seconds: float
    version: int = ONBOARD_VERSION

    @property
    def predictor(self) -> str:
        """How ``nnlat predict`` names this predictor."""
        return f"{self.shots}-shot onboarding of {self.platform} (nnlat onboard)"

    def predict_ms(self, model: Any) -> float:
        """Predicted latency (ms) of a model (path, TFLite/ONNX bytes or Graph)."""
        return self.scale * roofline_ms(model, self.rates, self.overheads)


def onboarded_dir() -> Path:
    """The user's directory of onboarded predictors: ``$NNLAT_ONBOARD_DIR``, else the
    user data directory's ``onboarded/``.

    Example:
        >>> onboarded_dir().name in ("onboarded", os.environ.get(ONBOARD_DIR_ENV, "")[-9:])
        True
    """
    import platformdirs

    configured = os.environ.get(ONBOARD_DIR_ENV)
    if configured:
        return Path(configured)
    return Path(platformdirs.user_data_dir("nnlat", appauthor=False)) / "onboarded"


def saved_path(platform: str, folder: Path | None = None) -> Path:
    """Where the onboarding of ``platform`` is saved (default folder :func:`onboarded_dir`)."""
    return (folder or onboarded_dir()) / f"{platform}.json"


def save(onboarding: Onboarding, folder: Path | None = None) -> Path:
    """Write ``onboarding`` as JSON in ``folder`` (default :func:`onboarded_dir`)."""
    path = saved_path(onboarding.platform, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(onboarding), indent=2) + "\n")
    return path


def load(platform: str, folder: Path | None = None) -> Onboarding | None:
    """The saved onboarding of ``platform``, or None if it was never onboarded.

    Raises:
        NnlatError: the file was saved in another onboarding format (version 1 had no
            fixed times): onboarding again is the fix, and the message says so.
    """
    path = saved_path(platform, folder)
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if data.get("version") != ONBOARD_VERSION:
        raise NnlatError(
            f"{path} was saved by another nnlat version (onboarding format "
            f"{data.get('version')}, this one reads {ONBOARD_VERSION}): run `nnlat onboard "
            f"-p {platform}` again"
        )
    data["shot_models"], data["shot_ms"] = tuple(data["shot_models"]), tuple(data["shot_ms"])
    return Onboarding(**data)


def _node_kind(op: str, group: int, macs: int) -> str | None:
    """The rate an operator runs at: a compute kind, a byte kind, or None (free)."""
    if op in FREE_OPS:
        return None
    if op in _BYTE_KINDS or not macs:
        return _BYTE_KINDS.get(op, "bytes")
    if op == "Conv":
        return "depthwise" if group > 1 else "conv"
    if op == "tflite:BATCH_MATMUL":  # two activations: no weights to reuse, its own rate
        return "batch_matmul"
    return "conv" if op == "ConvTranspose" else "matmul"


@dataclass(frozen=True)
class _Work:
    """What one operator does, in the units the rates are in."""

    op: str
    group: int
    macs: int
    bytes: int
    params: int
    out_bytes: int

    @property
    def kind(self) -> str | None:
        return _node_kind(self.op, self.group, self.macs)

    def amount(self, kind: str) -> int:
        """The operator's amount for ``kind``'s rate: MACs for a compute kind, kept bytes
        for a slice, parameters for weights, bytes moved otherwise."""
        if kind == "weights":
            return self.params
        if kind == "slice":
            return self.out_bytes
        return self.bytes if kind in _BYTE_RATES else self.macs


def _works(graph: Any) -> list[_Work]:
    from nnlat.graph.cost import graph_cost

    costs = graph_cost(graph).nodes
    # The costs walk sub-graphs too; without them, node i is costs[i] (its group known).
    if len(costs) == len(graph.nodes):
        groups = [int(n.attr("group") or 1) for n in graph.nodes]
        outs = [
            sum(spec.nbytes or 0 for spec in graph.node_outputs(i) if spec)
            for i in range(len(graph.nodes))
        ]
    else:
        groups, outs = [1] * len(costs), [c.bytes for c in costs]
    return [
        _Work(c.op, group, c.macs, c.bytes, c.params, out)
        for c, group, out in zip(costs, groups, outs, strict=True)
    ]


def _node_ms(work: _Work, device: Rates) -> float:
    kind = work.kind
    if kind is None:
        return 0.0
    if kind in _BYTE_RATES:
        return device.time(kind, work.amount(kind))
    # No bytes term: the element-wise rate (an ADD's) is no bound on what a convolution
    # reads — it made a stride-2 depthwise 3.6× too slow — and the compute workloads'
    # own rates already include the feature-map traffic of their sizes.
    return max(device.time(kind, work.macs), device.time("weights", work.params))


@dataclass(frozen=True)
class Rates:
    """A device's descriptor: per kind, a rate and a fixed time per operator."""

    rates: dict[str, float]
    overheads: dict[str, float]

    def time(self, kind: str, amount: int) -> float:
        """ms an operator of ``kind`` takes for ``amount`` (MACs, bytes or parameters)."""
        return self.overheads.get(kind, 0.0) + amount / self.rates[kind]


def roofline_ms(
    model: Any, rates: dict[str, float], overheads: dict[str, float] | None = None
) -> float:
    """The operators' roofline times summed, in ms.

    A compute operator (convolution, depthwise, dense, batched matmul) takes
    ``max(t(kind, MACs), t("weights", weights))`` (weights: int8 parameters, streamed from
    where the memory mode keeps them), with ``t(kind, amount) = overhead(kind) + amount /
    rate(kind)``; softmax and average pools their bytes at their own kind, slices the
    bytes they keep; other data-moving operators their bytes at the element-wise kind;
    fused activations, views and PAD nothing (:data:`FREE_OPS`).

    Example:
        >>> from nnlat.testing import tiny_model
        >>> round(roofline_ms(tiny_model(), dict.fromkeys(KINDS, 1e6)), 3)
        0.221
    """
    import nnlat
    from nnlat.graph.ir import Graph

    graph = model if isinstance(model, Graph) else nnlat.load(model)
    device = Rates(rates, overheads or {})
    return sum(_node_ms(work, device) for work in _works(graph))


def _line(points: list[tuple[int, float]]) -> tuple[float, float]:
    """(rate, fixed ms) of ``latency = fixed + amount / rate`` through ``points``.

    Least squares over the sizes; a negative fixed time (the larger workload relatively
    faster than a line allows) is clamped to zero with the rate of the largest workload,
    and so is a slope that would give no rate at all (one point, or a flat line).
    """
    amounts = [a for a, _ in points]
    times = [t for _, t in points]
    if len(points) > 1 and max(amounts) > min(amounts):
        slope, fixed = statistics.linear_regression(amounts, times)
        if slope > 0 and fixed >= 0:
            return 1 / slope, fixed
    amount, latency = max(points)
    return amount / latency, 0.0


def characterise(
    platform: str, estimate_ms: Callable[[bytes], float]
) -> tuple[dict[str, float], dict[str, float]]:
    """The device's rate and fixed time per kind, from :data:`WORKLOADS` estimated on it.

    A compute workload's amount is its MACs; a weights workload's (a dense layer at batch
    1) its parameters; the others' (add, pool, softmax, slice) their bytes (a slice's: the
    bytes it keeps). A chained workload's latency is the chain's minus the lone
    operator's, per added operator. Each kind has workloads at two sizes (or three), and
    ``latency = fixed + amount / rate`` is fitted through them (:func:`_line`): 40 Vela
    runs of models of one to three operators.

    Args:
        platform: for error messages.
        estimate_ms: a workload's ``.tflite`` → its latency (ms) on the platform.

    Returns:
        (rates, overheads): kind → amount per ms, kind → ms per operator.
    """
    import nnlat
    from nnlat.zoo.edge.int8_net import write_int8

    def model(network: Network, depth: int) -> bytes:
        return write_int8(lambda _config, nn: network(nn, depth), None)

    points: dict[str, list[tuple[int, float]]] = {}
    for name, (network, kind, chained) in WORKLOADS.items():
        alone = model(network, 1)
        amount = sum(work.amount(kind) for work in _works(nnlat.load(alone)) if work.kind)
        latency = estimate_ms(alone)
        if chained:
            latency = (estimate_ms(model(network, CHAIN)) - latency) / (CHAIN - 1)
        if latency <= 0 or amount <= 0:
            raise NnlatError(f"{platform}: workload {name} gave no usable estimate")
        points.setdefault(kind, []).append((amount, latency))
    fitted = {kind: _line(found) for kind, found in points.items()}
    return (
        {kind: rate for kind, (rate, _) in fitted.items()},
        {kind: fixed for kind, (_, fixed) in fitted.items()},
    )


def shot_models(k: int) -> list[tuple[str, bytes]]:
    """The first ``k`` of :data:`SHOT_MODELS` as ``("family:seed", int8 .tflite)``.

    Raises:
        NnlatError: more shots than nnlat has models for.
    """
    from nnlat.zoo import get_family

    if not 1 <= k <= len(SHOT_MODELS):
        raise NnlatError(f"--shots must be 1 to {len(SHOT_MODELS)} (asked for {k})")
    found = []
    for family, seed in SHOT_MODELS[:k]:
        spec = get_family(family)
        model = spec.model(spec.sample(random.Random(seed)))
        found.append((f"{family}:{seed}", model.to_tflite(converter="direct")))
    return found


def vela_estimator(platform: str) -> Callable[[bytes], float]:
    """``.tflite`` → Vela's latency estimate (ms) on a Vela platform.

    Raises:
        NnlatError: ``platform`` is not a Vela platform (only those can be onboarded;
            a CPU platform would need each workload and model timed on a quiet core).
    """
    from nnlat.measure.backends.vela import VelaBackend, estimate
    from nnlat.platform import UnknownPlatformError

    backend = VelaBackend()
    try:
        target = backend.target(platform)
    except (UnknownPlatformError, KeyError, ValueError):
        raise NnlatError(
            f"{platform!r} is not a Vela platform: onboarding is implemented for Vela "
            "(Ethos-U) platforms only; a CPU or GPU platform would need its workloads and "
            "K models timed on a quiet device (see `nnlat platforms`)"
        ) from None
    return lambda tflite: estimate(tflite, target).inference_time_s * 1e3


def onboard(
    platform: str,
    shots: int = 3,
    *,
    folder: Path | None = None,
    estimate_ms: Callable[[bytes], float] | None = None,
    models: Sequence[tuple[str, bytes]] | None = None,
) -> Onboarding:
    """Characterise ``platform``, measure ``shots`` models on it, adapt and save.

    Args:
        platform: a Vela platform name (``nnlat platforms``).
        shots: K, the models measured (1 to ``len(SHOT_MODELS)``).
        folder: where to save (default :func:`onboarded_dir`).
        estimate_ms: measures a ``.tflite`` on the platform (default: Vela's estimate).
        models: the K models as ``(name, .tflite)`` (default: :func:`shot_models`).

    Returns:
        The saved :class:`Onboarding`.

    Raises:
        NnlatError: not a Vela platform, or an unusable measurement.
    """
    start = time.perf_counter()
    measure = estimate_ms or vela_estimator(platform)
    rates, overheads = characterise(platform, measure)
    chosen = list(models) if models is not None else shot_models(shots)
    measured = [measure(tflite) for _, tflite in chosen]
    ratios = [
        m / roofline_ms(tflite, rates, overheads)
        for m, (_, tflite) in zip(measured, chosen, strict=True)
    ]
    onboarding = Onboarding(
        platform=platform,
        shots=len(chosen),
        rates=rates,
        overheads=overheads,
        scale=statistics.median(ratios),
        shot_models=tuple(name for name, _ in chosen),
        shot_ms=tuple(measured),
        created=time.time(),
        seconds=time.perf_counter() - start,
    )
    save(onboarding, folder)
    return onboarding
