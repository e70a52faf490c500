"""The search spaces the MAPLE study reads: an architecture as a CSV cell, an encoding, a recipe.

The study's tables keep one architecture per row as a string (``arch``). For NAS-Bench-201
that is the cell's usual string; for PerfSAGE's keyword-spotting space (``cnn-kws``, the
issue's EdgeDLPerf-like space) it is the zoo recipe as compact, key-sorted JSON. Each space
says how that string becomes MAPLE's architecture encoding and the zoo recipe to export.

Each space also names its primitive workloads (MAPLE's operation-level characterisation:
every operator of the space alone, at the sizes the space uses) and how they compose into
an architecture's look-up-table latency. NAS-Bench-201 composes its cell operators'
counts, priced for where tensors land (:mod:`~nnlat.studies.maple_traffic`); a keyword
spotter is a sum of its layers, each a primitive of its own (``compute``; ``split`` parts
each layer's latency into on- and off-chip time).
The look-up-table methods (``maple-ops``, ``maple-lut``, ``lut``…) need a composition;
the regressors (``maple``, its ablation, ``help``) and ``nnlp-ft`` need only the
encoding or the graph.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nnlat.measure.descriptor import HardwareDescriptor
from nnlat.studies.maple_kws_context import tflite_of
from nnlat.zoo.edge import cnn_kws
from nnlat.zoo.family import Config
from nnlat.zoo.nasbench201 import ALL_CONV3X3, OPS, arch_config, parse_arch

DATA = Path("data/maple")


@dataclass(frozen=True)
class Space:
    """How the study reads one search space.

    Attributes:
        family: the zoo family the campaign measured (``nnlat dataset build -f``).
        label: the space in a report's words.
        arch: a stored zoo recipe (``zoo_spec["config"]``) → the table's ``arch`` string.
        config: the inverse: an ``arch`` string → the recipe the family builds.
        encode: an ``arch`` string → MAPLE's architecture encoding (a fixed-length vector).
        encoding: that encoding in a report's words.
        graph_family: the zoo family whose export ``nnlp-ft`` reads as a graph (for
            NAS-Bench-201 the float ONNX network the int8 files were converted from).
        workloads: the space's primitive workloads, name → int8 ``.tflite`` bytes (a
            cache folder may keep slow exports between runs).
        descriptors: the descriptors' JSON file of these workloads on the pool.
        pricings: the pricings of :mod:`~nnlat.studies.maple_traffic` its primitives
            compose with (``nnlat.studies.maple.compose``).
        context: the JSON file of its primitives' in-context latencies (the ``context``
            pricing), beside the descriptors.
        in_context: prepares the in-context characterisation (exports what it needs
            once) and returns it: a Vela platform → primitive → ms.
    """

    family: str
    label: str
    arch: Callable[[Config], str]
    config: Callable[[str], Config]
    encode: Callable[[str], np.ndarray]
    encoding: str
    graph_family: str
    workloads: Callable[[Path | None], dict[str, bytes]]
    descriptors: Path
    pricings: tuple[str, ...]
    context: Path
    in_context: Callable[[], Callable[[str], dict[str, float]]]

    @property
    def composes(self) -> bool:
        """Whether the look-up-table methods can run on the space."""
        return bool(self.pricings)


def encode_nb201(arch: str) -> np.ndarray:
    """One-hot operation matrix of a cell (MAPLE's encoding, after White et al.): 6 × 5 → 30.

    Example:
        >>> from nnlat.zoo.nasbench201 import ALL_CONV3X3
        >>> encode_nb201(ALL_CONV3X3).reshape(6, 5)[0].tolist()
        [0.0, 0.0, 0.0, 1.0, 0.0]
    """
    edges = [op for node in parse_arch(arch) for op, _ in node]
    out = np.zeros((len(edges), len(OPS)))
    for row, op in enumerate(edges):
        out[row, OPS.index(op)] = 1.0
    return out.ravel()


def kws_arch(config: Config) -> str:
    """A keyword spotter's recipe as the table's ``arch`` string: compact, key-sorted JSON.

    Example:
        >>> kws_arch({"layers": [], "frames": 49})
        '{"frames":49,"layers":[]}'
    """
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def _one_hot(value: int, options: tuple[int, ...]) -> list[float]:
    return [float(value == option) for option in options]


def _width(channels: int) -> float:
    """Channels 32 … 512 as 0 … 1 on a log scale (a layer's cost grows with its width's square)."""
    low, high = cnn_kws.CHANNELS[0], cnn_kws.CHANNELS[-1]
    return float(np.log2(channels / low) / np.log2(high / low))


def encode_kws(arch: str) -> np.ndarray:
    """A keyword spotter as 80 numbers: the first convolution, then eight layer slots.

    First convolution: one-hot time kernel (4) and frequency kernel (3), log width (1).
    Each slot of :data:`~nnlat.zoo.edge.cnn_kws.MAX_LAYERS`: present (1), log width (1),
    one-hot depthwise time kernel (4) and frequency kernel (3); empty slots are zeros.
    Layers fill the slots in order, as MAPLE's fixed-length encodings do.

    Example:
        >>> import random
        >>> from nnlat.zoo.edge.cnn_kws import sample
        >>> vector = encode_kws(kws_arch(sample(random.Random(0)).to_config()))
        >>> vector.shape
        (80,)
    """
    config = json.loads(arch)
    time, freq = config["first_kernel"]
    values = [
        *_one_hot(time, cnn_kws.FIRST_TIME_KERNELS),
        *_one_hot(freq, cnn_kws.FIRST_FREQ_KERNELS),
        _width(config["first_channels"]),
    ]
    layers = config["layers"]
    for slot in range(cnn_kws.MAX_LAYERS):
        if slot >= len(layers):
            values += [0.0] * (2 + len(cnn_kws.TIME_KERNELS) + len(cnn_kws.FREQ_KERNELS))
            continue
        time, freq = layers[slot]["kernel"]
        values += [
            1.0,
            _width(layers[slot]["channels"]),
            *_one_hot(time, cnn_kws.TIME_KERNELS),
            *_one_hot(freq, cnn_kws.FREQ_KERNELS),
        ]
    return np.array(values)


def nb201_workloads(cache: Path | None = None) -> dict[str, bytes]:
    """The int8 ``.tflite`` of every NAS-Bench-201 primitive (exported once, cached).

    Args:
        cache: a folder keeping the exported files between runs; None exports each time.
    """
    from nnlat.studies.maple_nb201_context import export_cached
    from nnlat.zoo.nasbench201_tflite import primitives

    return export_cached(primitives(arch_config(ALL_CONV3X3)), cache)


def kws_workloads(cache: Path | None = None) -> dict[str, bytes]:
    """The int8 ``.tflite`` of every keyword-spotting primitive (direct writer, ~1 s, no cache).

    Example:
        >>> workloads = kws_workloads()
        >>> len(workloads), workloads["dw_7x5_c64"][4:8]
        (264, b'TFL3')
    """
    del cache  # writing all 264 takes about a second
    return {name: tflite_of(build) for name, build in cnn_kws.primitive_networks().items()}


def characterise_pool_in_context(
    platforms: Sequence[str],
    characterise: Callable[[str], dict[str, float]],
    out: Path,
    on_device: Callable[[str], None] | None = None,
) -> dict[str, dict[str, float]]:
    """Build (or complete) ``out``: platform → primitive → in-context ms. Resumable.

    Args:
        characterise: a platform → its primitives' in-context latencies (a
            :attr:`Space.in_context`).

    Example:
        >>> import tempfile
        >>> out = Path(tempfile.mkdtemp()) / "context.json"
        >>> characterise_pool_in_context(["npu"], lambda p: {"dw_3x3_c64": 0.5}, out)
        {'npu': {'dw_3x3_c64': 0.5}}
        >>> load_context(out) == characterise_pool_in_context(["npu"], print, out)
        True
    """
    found = load_context(out) if out.is_file() else {}
    for platform in platforms:
        if platform in found:
            continue
        found[platform] = characterise(platform)
        out.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        if on_device is not None:
            on_device(platform)
    return found


def load_context(path: Path) -> dict[str, dict[str, float]]:
    """What :func:`characterise_pool_in_context` wrote."""
    return json.loads(path.read_text())


def _kws_in_context() -> Callable[[str], dict[str, float]]:
    from nnlat.studies.maple_kws_context import characterise_in_context

    return characterise_in_context


def _nb201_in_context(cache: Path | None = None) -> Callable[[str], dict[str, float]]:
    from nnlat.studies.maple_nb201_context import characterise_in_context, context_workloads

    workloads = context_workloads(cache)
    return lambda platform: characterise_in_context(platform, workloads)


KWS_KINDS = ("first", "dw", "pw", "head")
KWS_PRICINGS = ("compute", "split", "context")


def compose_kws(
    archs: Sequence[str],
    descriptors: Mapping[str, HardwareDescriptor],
    devices: Sequence[str],
    pricing: str = "compute",
    context: Mapping[str, Mapping[str, float]] | None = None,
) -> np.ndarray:
    """Each spotter's primitive latencies (ms) on each device, summed by kind (:data:`KWS_KINDS`).

    ``split`` pricing cuts each kind's sum in two: the part of each primitive's latency
    spent on off-chip memory (its DRAM and flash access cycles over all its cycles, from
    the descriptor's counters) and the rest. Alone, a layer reads its input and writes
    its output off-chip where the arena lives in DRAM; inside a network most of that
    traffic stays in the SRAM cache, so the two parts survive in different proportions,
    and a composition that fits one efficiency per column can learn that. ``context``
    pricing sums instead each primitive's latency estimated between two neighbours of the
    space (``context``: device → primitive → ms, from
    :func:`nnlat.studies.maple_kws_context.characterise_in_context`).

    Returns:
        ``(devices, archs, 4)`` (``compute``, ``context``) or ``(devices, archs, 8)``
        (``split``: each kind's on-chip part, then its off-chip part); summed over the last
        axis, the look-up-table latency.

    Raises:
        ValueError: a pricing not in :data:`KWS_PRICINGS`, or ``context`` without the
            in-context latencies of every device.

    Example:
        >>> compose_kws([], {}, [], "split").shape
        (0, 0, 8)
    """
    if pricing not in KWS_PRICINGS:
        raise ValueError(f"unknown pricing {pricing!r}; known: {', '.join(KWS_PRICINGS)}")
    if pricing == "context" and (context is None or any(d not in context for d in devices)):
        raise ValueError("context pricing needs every device's in-context latencies")
    names = [cnn_kws.primitive_names(cnn_kws.KwsConfig.from_config(json.loads(a))) for a in archs]
    parts = 2 if pricing == "split" else 1
    design = np.zeros((len(devices), len(archs), len(KWS_KINDS) * parts))
    for d, device in enumerate(devices):
        if pricing == "context":
            assert context is not None  # checked above
            costs = {w: (ms, 0.0) for w, ms in context[device].items()}
        else:
            costs = _alone_costs(descriptors[device])
        for i, kinds in enumerate(names):
            row = []
            for kind in KWS_KINDS:
                on, off = (sum(costs[n][p] for n in kinds[kind]) for p in (0, 1))
                row += [on, off] if parts == 2 else [on + off]
            design[d, i] = row
    return design


def _alone_costs(descriptor: HardwareDescriptor) -> dict[str, tuple[float, float]]:
    """Each primitive's latency alone (ms), split into on-chip and off-chip time."""
    costs = {}
    for w in descriptor.workloads:
        latency = 1e3 * descriptor.counter(w, "latency_s")
        off_chip = sum(
            descriptor.counter(w, c) for c in ("cycles_dram_access", "cycles_off_chip_flash_access")
        )
        busy = off_chip + sum(
            descriptor.counter(w, c) for c in ("cycles_npu", "cycles_sram_access")
        )
        share = off_chip / busy if busy > 0 else 0.0
        costs[w] = (latency * (1 - share), latency * share)
    return costs


NB201 = Space(
    family="nasbench201-int8",
    label="NAS-Bench-201 int8 TFLite",
    arch=lambda config: config["arch"],
    config=arch_config,
    encode=encode_nb201,
    encoding="one-hot cell",
    graph_family="nasbench201",
    workloads=nb201_workloads,
    descriptors=DATA / "descriptors.json",
    pricings=("compute", "on_chip", "placement", "context"),
    context=DATA / "nb201_context.json",
    in_context=_nb201_in_context,
)
KWS = Space(
    family="cnn-kws",
    label="CNN-KWS (PerfSAGE's keyword-spotting space) int8 TFLite",
    arch=kws_arch,
    config=json.loads,
    encode=encode_kws,
    encoding="the 80-number layer encoding of `maple_spaces.encode_kws`",
    graph_family="cnn-kws",
    workloads=kws_workloads,
    descriptors=DATA / "kws_descriptors.json",
    pricings=KWS_PRICINGS,
    context=DATA / "kws_context.json",
    in_context=_kws_in_context,
)
SPACES = {space.family: space for space in (NB201, KWS)}


def space_of(family: str) -> Space:
    """The :class:`Space` of a zoo family.

    Raises:
        ValueError: a family the study cannot read, with the ones it can.

    Example:
        >>> space_of("cnn-kws").pricings
        ('compute', 'split', 'context')
    """
    if family not in SPACES:
        raise ValueError(f"the MAPLE study reads {', '.join(SPACES)}, not {family!r}")
    return SPACES[family]
