"""Random ResNet-like DAGs, after the DNN dataset of COBRA (appendix A.2 and Table 6).

COBRA trains its latency predictor on random networks whose layers may be connected
"between any two arbitrary network layers". The sampler here follows that recipe:

1. draw N in ``MIN_LAYERS..MAX_LAYERS`` and an upper-triangular adjacency over the input
   node 0 and layers 1..N, each edge present with probability ``EDGE_PROBABILITY`` = 0.4;
   redraw until layer N (the output) is reachable from the input;
2. prune, as NAS-Bench-101 does, every layer that is not on a path from the input to the
   output;
3. give each remaining layer an op of Table 6: Conv+BN+ReLU or SepConv (depthwise kxk,
   pointwise 1x1)+BN+ReLU with channels in {32, ..., 512}, kernel in {3, 5, 7} and stride
   in {1, 2, 4}, or a 2x2 average or max pooling.

Where a layer has several inputs they are added; an input whose channel count or spatial
size differs from the largest channel count and the smallest size among them first goes
through a 1x1 Conv+BN+ReLU adapter (strided where it must shrink), COBRA's "convolution
blocks before adding layers". The last layer feeds global average pooling and a Linear
classifier. Input resolutions are multiples of 32 and the total downsampling is capped at
32, so every size is exact and adapters only need power-of-two strides.

To keep networks within reach of a measurement campaign (≤ ``MAX_MACS``), a layer's
channels/kernel/stride are drawn uniformly among the combinations that keep its output
below ``MAX_ACTIVATION`` elements, its weights below ``MAX_LAYER_WEIGHTS`` (ResNet's
largest convolution) and its multiply-accumulates below an even share of the budget; a
network still over budget is redrawn.

The configuration lists every layer explicitly (``{"op", "inputs", "channels", "kernel",
"stride"}``, inputs as node indices, 0 being the image), so :func:`build` uses no
randomness.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from nnlat.zoo.blocks import ConvBNAct
from nnlat.zoo.family import Config, Family

RESOLUTIONS = (64, 96, 128, 160, 192, 224)
CHANNELS = (32, 64, 128, 256, 512)
KERNELS = (3, 5, 7)
STRIDES = (1, 2, 4)
CONV_OPS = ("conv", "sepconv")
POOL_OPS = ("avgpool", "maxpool")
EDGE_PROBABILITY = 0.4
MIN_LAYERS, MAX_LAYERS = 4, 30
NUM_CLASSES = 1000
MAX_DOWNSAMPLING = 32
MAX_MACS = 2_000_000_000
MAX_ACTIVATION = 32 * 224 * 224
# ResNet-18's largest convolution (3x3, 512→512); bounds parameters, and so export time.
MAX_LAYER_WEIGHTS = 512 * 512 * 3 * 3

Layer = dict[str, Any]


@dataclass(frozen=True)
class SampleSpace:
    """The choices :func:`sample` draws from; :data:`SPACE` is COBRA's, others are smaller.

    Attributes:
        resolutions: input sizes, multiples of ``MAX_DOWNSAMPLING``.
        channels: output channels a conv or sepconv layer may have.
        min_layers, max_layers: range of the layer count before pruning.
        max_macs: multiply-accumulate budget of a whole network.
        num_classes: classifier outputs.
    """

    resolutions: tuple[int, ...] = RESOLUTIONS
    channels: tuple[int, ...] = CHANNELS
    min_layers: int = MIN_LAYERS
    max_layers: int = MAX_LAYERS
    max_macs: float = MAX_MACS
    num_classes: int = NUM_CLASSES


SPACE = SampleSpace()


def _merge(shapes: list[tuple[int, int]], inputs: list[int]) -> tuple[int, int]:
    """(channels, downsampling factor) at which ``inputs`` are added: the widest, smallest."""
    return max(shapes[i][0] for i in inputs), max(shapes[i][1] for i in inputs)


def _layer_shape(spec: Layer, merged: tuple[int, int]) -> tuple[int, int]:
    """(channels, downsampling factor) of a layer's output, given its merged input."""
    channels, factor = merged
    if spec["op"] in POOL_OPS:
        return channels, factor * 2
    return spec["channels"], factor * spec["stride"]


def _shapes(layers: list[Layer]) -> list[tuple[int, int]]:
    """(channels, downsampling factor) of every node, the RGB input (node 0) first."""
    shapes = [(3, 1)]
    for spec in layers:
        shapes.append(_layer_shape(spec, _merge(shapes, spec["inputs"])))
    return shapes


def _op_macs(op: str, c_in: int, c_out: int, kernel: int, size_out: int) -> int:
    """Multiply-accumulates of a conv or sepconv producing a ``size_out`` square map."""
    pixels = size_out * size_out
    if op == "conv":
        return c_in * c_out * kernel * kernel * pixels
    return (c_in * kernel * kernel + c_in * c_out) * pixels


def macs(config: Config) -> int:
    """Multiply-accumulates of the convolutions (adapters included) and the classifier.

    Args:
        config: a randdag configuration.

    Returns:
        The count for one image; pooling, BN, ReLU and additions are not counted.
    """
    resolution = config["resolution"]
    shapes = _shapes(config["layers"])
    total = 0
    for node, spec in enumerate(config["layers"], start=1):
        channels, factor = _merge(shapes, spec["inputs"])
        size = resolution // factor
        total += sum(
            shapes[i][0] * channels * size * size
            for i in spec["inputs"]
            if shapes[i] != (channels, factor)
        )
        if spec["op"] in CONV_OPS:
            total += _op_macs(
                spec["op"],
                channels,
                spec["channels"],
                spec["kernel"],
                resolution // shapes[node][1],
            )
    return total + shapes[-1][0] * config["num_classes"]


def validate(config: Config) -> None:
    """Check that a configuration describes a buildable network.

    Raises:
        ValueError: unknown op, bad parameters, an input that is not an earlier node, or a
            downsampling that does not divide the resolution.
    """
    layers = config["layers"]
    if not layers:
        raise ValueError("randdag config has no layers")
    for node, spec in enumerate(layers, start=1):
        inputs = spec.get("inputs") or []
        if not inputs or any(not 0 <= i < node for i in inputs) or len(set(inputs)) != len(inputs):
            raise ValueError(
                f"randdag layer {node}: inputs {inputs} must be distinct earlier nodes"
            )
        if spec["op"] in CONV_OPS:
            if spec["channels"] < 1 or spec["kernel"] % 2 != 1 or spec["stride"] < 1:
                raise ValueError(f"randdag layer {node}: bad conv parameters {spec}")
        elif spec["op"] not in POOL_OPS:
            raise ValueError(
                f"randdag layer {node}: unknown op {spec['op']!r}; known: {CONV_OPS + POOL_OPS}"
            )
    for node, (_, factor) in enumerate(_shapes(layers)):
        if config["resolution"] % factor:
            raise ValueError(
                f"randdag node {node}: downsampling x{factor} does not divide "
                f"resolution {config['resolution']}"
            )


def _layer_module(spec: Layer, c_in: int) -> nn.Module:
    op = spec["op"]
    if op == "avgpool":
        return nn.AvgPool2d(2, stride=2)
    if op == "maxpool":
        return nn.MaxPool2d(2, stride=2)
    channels, kernel, stride = spec["channels"], spec["kernel"], spec["stride"]
    if op == "conv":
        return ConvBNAct(c_in, channels, kernel, stride)
    return nn.Sequential(
        nn.Conv2d(c_in, c_in, kernel, stride, kernel // 2, groups=c_in, bias=False),
        nn.Conv2d(c_in, channels, 1, bias=False),
        nn.BatchNorm2d(channels),
        nn.ReLU(),
    )


class RandomDAG(nn.Module):
    """A network of explicitly listed layers, each adding its (adapted) inputs first."""

    def __init__(self, layers: list[Layer], num_classes: int) -> None:
        super().__init__()
        shapes = _shapes(layers)
        self.inputs = [list(spec["inputs"]) for spec in layers]
        self.adapters = nn.ModuleList()
        self.ops = nn.ModuleList()
        for spec in layers:
            channels, factor = _merge(shapes, spec["inputs"])
            # Keyed by input node; inputs already of the common shape have no adapter.
            self.adapters.append(
                nn.ModuleDict(
                    {
                        str(i): ConvBNAct(shapes[i][0], channels, 1, factor // shapes[i][1])
                        for i in spec["inputs"]
                        if shapes[i] != (channels, factor)
                    }
                )
            )
            self.ops.append(_layer_module(spec, channels))
        self.head = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(shapes[-1][0], num_classes)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits of shape (batch, num_classes)."""
        nodes = [x]
        for inputs, adapters, op in zip(self.inputs, self.adapters, self.ops, strict=True):
            terms = [adapters[str(i)](nodes[i]) if str(i) in adapters else nodes[i] for i in inputs]
            nodes.append(op(sum(terms[1:], start=terms[0])))
        return self.head(nodes[-1])


def build(config: Config) -> nn.Module:
    """Build the network of a configuration; no randomness involved.

    Raises:
        ValueError: the configuration is invalid (see :func:`validate`).
    """
    validate(config)
    return RandomDAG(config["layers"], config["num_classes"])


def _random_topology(rng: random.Random, space: SampleSpace) -> list[list[int]]:
    """Inputs of each layer after pruning, as indices into the pruned node list."""
    num_layers = rng.randint(space.min_layers, space.max_layers)
    while True:
        preds = [
            [i for i in range(j) if rng.random() < EDGE_PROBABILITY] for j in range(num_layers + 1)
        ]
        from_input = {0}
        for j in range(1, num_layers + 1):
            if any(i in from_input for i in preds[j]):
                from_input.add(j)
        if num_layers in from_input:
            break
    to_output = {num_layers}
    for j in range(num_layers, 0, -1):
        if j in to_output:
            to_output.update(preds[j])
    kept = sorted(from_input & to_output)
    index = {node: k for k, node in enumerate(kept)}
    return [[index[i] for i in preds[j] if i in index] for j in kept[1:]]


def _random_layer(
    rng: random.Random,
    c_in: int,
    factor: int,
    resolution: int,
    macs_budget: float,
    channel_choices: tuple[int, ...],
) -> Layer:
    """One layer op for a merged input of ``c_in`` channels downsampled by ``factor``."""
    ops = CONV_OPS + (POOL_OPS if factor * 2 <= MAX_DOWNSAMPLING else ())
    op = rng.choice(ops)
    if op in POOL_OPS:
        return {"op": op}
    options = []
    for channels in channel_choices:
        for kernel in KERNELS:
            for stride in STRIDES:
                if factor * stride > MAX_DOWNSAMPLING:
                    continue
                size = resolution // (factor * stride)
                cost = _op_macs(op, c_in, channels, kernel, size)
                weights = _op_macs(op, c_in, channels, kernel, 1)  # MACs per pixel = weights
                options.append((cost, channels * size * size, weights, channels, kernel, stride))
    fitting = [
        o
        for o in options
        if o[0] <= macs_budget and o[1] <= MAX_ACTIVATION and o[2] <= MAX_LAYER_WEIGHTS
    ]
    # Nothing fits (a wide, large input): fall back to the cheapest choice.
    *_, channels, kernel, stride = rng.choice(fitting) if fitting else min(options)
    return {"op": op, "channels": channels, "kernel": kernel, "stride": stride}


def sample(rng: random.Random, space: SampleSpace = SPACE) -> Config:
    """A random DAG network with every choice resolved into the configuration.

    Example:
        >>> config = sample(random.Random(0))
        >>> macs(config) <= MAX_MACS and config["resolution"] in RESOLUTIONS
        True
    """
    while True:
        resolution = rng.choice(space.resolutions)
        topology = _random_topology(rng, space)
        layers: list[Layer] = []
        shapes = [(3, 1)]
        for inputs in topology:
            channels, factor = _merge(shapes, inputs)
            budget = space.max_macs / len(topology)
            spec = {"inputs": inputs} | _random_layer(
                rng, channels, factor, resolution, budget, space.channels
            )
            layers.append(spec)
            shapes.append(_layer_shape(spec, (channels, factor)))
        config = {"resolution": resolution, "num_classes": space.num_classes, "layers": layers}
        if macs(config) <= space.max_macs:
            return config


FAMILY = Family(
    name="randdag",
    summary="COBRA-style random ResNet-like DAGs with any-to-any skip connections",
    sample=sample,
    build=build,
)
