"""K-shot onboarding of a new platform: characterise it, measure K models, adapt, save.

MAPLE (Abbasi et al., CVPRW 2022) adapts to a device from three measurements because it
first *describes* the device by running primitive operations on it. :func:`onboard` does
that for a Vela (Ethos-U) platform, for *any* int8 TFLite model rather than one search
space:

1. **characterise**: every workload of :data:`WORKLOADS` — one operator each (3×3 and 1×1
   convolution, depthwise convolution, dense, a weight-streaming dense, batched matmul,
   element-wise add, average pool, softmax, slice), written by
   the direct int8 writer, no TensorFlow — is estimated by Vela on the platform; each gives
   the device's effective rate for its kind of operator (MACs per second, or bytes per
   second for an operator that moves data);
2. **measure** K models of nnlat's choice (:data:`SHOT_MODELS`: EdgeDLPerf-space networks
   at fixed seeds, in an order that mixes convolutional and attention networks);
3. **adapt**: a model's estimate is the roofline sum over its operators,
   ``Σ max(MACs / rate(kind), bytes / rate(bytes))`` (:func:`roofline_ms`), times one
   scale: the median measured / estimated ratio of the K shots — what the isolated
   operators miss (cascading, weight streaming, per-operator overheads);
4. **save** the descriptor rates, the scale and the shots as JSON in the user's
   predictor directory (:func:`onboarded_dir`), where ``nnlat predict -p PLATFORM`` finds
   it.

CPU platforms would need a timing descriptor (each workload timed on a quiet core) and
timing of the K models; that is not implemented, and :func:`onboard` says so.

Example:
    >>> sorted(WORKLOADS)[:2]
    ['add', 'avgpool']
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
ONBOARD_VERSION = 1
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

KINDS = ("conv", "depthwise", "matmul", "batch_matmul", "softmax", "slice", "bytes", "weights")
FREE_OPS = frozenset({"Relu", "Clip", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
"""Operators that cost nothing on the NPU: fused activations (a TFLite fused ReLU loads as
its own node) and views."""
# Costed by their bytes at their own rate. nnlat's cost model has no MACs for TFLite's
# BATCH_MATMUL, so it is one of them.
_BYTE_KINDS = {
    "Softmax": "softmax",
    "tflite:STRIDED_SLICE": "slice",
    "Slice": "slice",
    "tflite:BATCH_MATMUL": "batch_matmul",
}
_BYTE_RATES = frozenset({*_BYTE_KINDS.values(), "bytes"})


def _conv3x3(nn: Any) -> Any:
    return nn.conv2d(nn.input((1, 32, 32, 32)), 32, (3, 3), 1, "same", "relu")


def _conv1x1(nn: Any) -> Any:
    return nn.conv2d(nn.input((1, 32, 32, 64)), 64, (1, 1), 1, "same", None)


def _depthwise(nn: Any) -> Any:
    return nn.depthwise_conv2d(nn.input((1, 32, 32, 64)), (3, 3), 1, "same", "relu")


def _dense(nn: Any) -> Any:
    return nn.dense(nn.input((1, 64, 256)), 256)


def _weights(nn: Any) -> Any:
    return nn.dense(nn.input((1, 1024)), 1024)


def _add(nn: Any) -> Any:
    x = nn.input((1, 32, 32, 64))
    return nn.add(x, x)


def _avgpool(nn: Any) -> Any:
    return nn.average_pool(nn.input((1, 32, 32, 64)))


def _batch_matmul(nn: Any) -> Any:
    x = nn.input((1, 64, 64))
    return nn.batch_matmul(x, x, transpose_y=True)


def _softmax(nn: Any) -> Any:
    return nn.softmax(nn.input((1, 64, 64)))


def _slice(nn: Any) -> Any:
    return nn.slice_last(nn.input((1, 64, 192)), 0, 64)


WORKLOADS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "conv3x3": (_conv3x3, "conv"),
    "conv1x1": (_conv1x1, "conv"),
    "depthwise": (_depthwise, "depthwise"),
    "dense": (_dense, "matmul"),
    "batch_matmul": (_batch_matmul, "batch_matmul"),
    "weights": (_weights, "weights"),
    "add": (_add, "bytes"),
    "avgpool": (_avgpool, "bytes"),
    "softmax": (_softmax, "softmax"),
    "slice": (_slice, "slice"),
}
"""name → (network against ``nnlat.zoo.edge.net.Net``, the rate it measures)."""


@dataclass(frozen=True)
class Onboarding:
    """What onboarding saved for a platform.

    Attributes:
        platform: the platform's name.
        shots: K, how many models were measured.
        rates: kind (:data:`KINDS`) → effective rate on the device (MACs or bytes per ms).
        scale: median measured / roofline ratio over the shots.
        shot_models: ``family:seed`` of the measured models.
        shot_ms: their measured latencies (ms).
        created: UNIX time of the onboarding.
        seconds: wall time it took.
    """

    platform: str
    shots: int
    rates: dict[str, float]
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
        return self.scale * roofline_ms(model, self.rates)


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
    """The saved onboarding of ``platform``, or None if it was never onboarded."""
    path = saved_path(platform, folder)
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
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
    return "conv" if op == "ConvTranspose" else "matmul"


def _node_ms(
    op: str, group: int, macs: int, size: int, params: int, rates: dict[str, float]
) -> float:
    kind = _node_kind(op, group, macs)
    if kind is None:
        return 0.0
    if kind in _BYTE_RATES:
        return size / rates[kind]
    return max(macs / rates[kind], size / rates["bytes"], params / rates["weights"])


def roofline_ms(model: Any, rates: dict[str, float]) -> float:
    """The operators' roofline times summed, in ms.

    A compute operator takes ``max(MACs / rate(kind), bytes / rate("bytes"), weights /
    rate("weights"))`` (weights: int8 parameters, streamed from where the memory mode
    keeps them); softmax,
    slices and batched matmuls their bytes at their own rate; other data-moving operators
    bytes at the element-wise rate; fused activations and views nothing (:data:`FREE_OPS`).

    Example:
        >>> from nnlat.testing import tiny_model
        >>> round(roofline_ms(tiny_model(), dict.fromkeys(KINDS, 1e6)), 3)
        0.221
    """
    import nnlat
    from nnlat.graph.cost import graph_cost
    from nnlat.graph.ir import Graph

    graph = model if isinstance(model, Graph) else nnlat.load(model)
    costs = graph_cost(graph).nodes
    # The costs walk sub-graphs too; without them, node i is costs[i] (its group known).
    groups = [int(n.attr("group") or 1) for n in graph.nodes]
    if len(costs) != len(graph.nodes):
        groups = [1] * len(costs)
    return sum(
        _node_ms(c.op, group, c.macs, c.bytes, c.params, rates)
        for c, group in zip(costs, groups, strict=True)
    )


def characterise(platform: str, estimate_ms: Callable[[bytes], float]) -> dict[str, float]:
    """The device's effective rate per kind, from :data:`WORKLOADS` estimated on it.

    A compute workload's rate is its MACs per ms; the weights workload's (a 1024 × 1024
    dense layer at batch 1) its parameters per ms; the others' (add, pool, softmax,
    slice, batched matmul) their bytes per ms. Where two workloads measure one kind, the slower
    rate is kept (the isolated fast case overstates what a network sees).

    Args:
        platform: for error messages.
        estimate_ms: a workload's ``.tflite`` → its latency (ms) on the platform.
    """
    import nnlat
    from nnlat.graph.cost import graph_cost
    from nnlat.zoo.edge.int8_net import write_int8

    rates: dict[str, float] = {}
    for name, (network, kind) in WORKLOADS.items():
        tflite = write_int8(lambda _config, nn, network=network: network(nn), None)
        cost = graph_cost(nnlat.load(tflite))
        amount = {"weights": cost.params}.get(
            kind, cost.bytes if kind in _BYTE_RATES else cost.macs
        )
        latency = estimate_ms(tflite)
        if latency <= 0 or amount <= 0:
            raise NnlatError(f"{platform}: workload {name} gave no usable estimate")
        rates[kind] = min(rates.get(kind, float("inf")), amount / latency)
    return rates


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
    rates = characterise(platform, measure)
    chosen = list(models) if models is not None else shot_models(shots)
    measured = [measure(tflite) for _, tflite in chosen]
    ratios = [
        m / roofline_ms(tflite, rates) for m, (_, tflite) in zip(measured, chosen, strict=True)
    ]
    onboarding = Onboarding(
        platform=platform,
        shots=len(chosen),
        rates=rates,
        scale=statistics.median(ratios),
        shot_models=tuple(name for name, _ in chosen),
        shot_ms=tuple(measured),
        created=time.time(),
        seconds=time.perf_counter() - start,
    )
    save(onboarding, folder)
    return onboarding
