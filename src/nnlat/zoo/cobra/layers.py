"""Random layer implementations of COBRA's eight layer types (paper Table 4), as snippets.

Each configuration is one layer: its ``type`` and every parameter drawn uniformly from
Table 4's range, with the paper's per-type shares of the 267,958 samples (Convolution
43 %, ReLU 24 %, BatchNormalization 14 %, Linear 7.5 %, GlobalAveragePooling 5.2 %,
Add 3.7 %, AveragePooling 1.4 %, MaxPooling 0.8 %)::

    Convolution   H, W, C_in, C_out ∈ range(1, N); K1, K2, S1, S2 ∈ range(1, 10);
                  P1, P2 ∈ range(0, 10); D1, D2 ∈ range(1, 5); G = gcd(C_in, C_out)
    BatchNorm, ReLU, GlobalAveragePooling   H, W, C ∈ range(1, N)
    Add           H, W, C ∈ range(1, N); M ∈ range(2, 10) inputs
    Linear        C_in, C_out ∈ range(1, N)
    Avg/MaxPool   H, W, C ∈ range(1, N); K1, K2, S1, S2 ∈ range(1, 10); P1, P2 ∈ range(0, 10)

**Scaled down for one CPU core.** The paper draws sizes from range(1, 1000) and times
them on a GTX 1080 Ti; one core of this host is some 300x slower on convolutions
(~15 GMAC/s measured), where a uniform draw would average seconds per layer. Here
``N = SIZE_LIMIT = 250`` (Table 4's ranges of H, W and C divided by 4; kernel, stride,
padding, dilation and M unchanged), and a draw is redrawn when the layer would exceed
``MAX_LAYER_MACS`` (1e9 multiply-accumulates, ~70 ms) or when any of its tensors would
exceed ``MAX_TENSOR_ELEMENTS`` (4e6 floats, 16 MB). About 80 % of draws pass both
caps; the median convolution is ~3e7 MACs. Draws PyTorch refuses are also redrawn: an
output smaller than 1x1, pooling padding over half the kernel.

Batch size 1, float32. The configuration holds the drawn parameters; :func:`layer_snippet`
renders it with the interpreter's own functions (:mod:`nnlat.code.snippet`), so the
snippets of this dataset read exactly like those the interpreter extracts from a network.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from nnlat.code.snippet import SnippetModule, constructor_text, render_snippet, snippet_input_shapes
from nnlat.zoo.family import Config, Family

SIZE_LIMIT = 250  # Table 4's range(1, 1000) for H, W and C, divided by 4
MAX_LAYER_MACS = 1_000_000_000
MAX_TENSOR_ELEMENTS = 4_000_000

# Table 4's sample counts per type: the shares the sampler draws types with.
TYPE_SAMPLES = {
    "Convolution": 115_192,
    "BatchNormalization": 38_020,
    "ReLU": 64_734,
    "Add": 10_000,
    "Linear": 20_164,
    "AveragePooling": 3_806,
    "MaxPooling": 2_108,
    "GlobalAveragePooling": 13_934,
}
LAYER_TYPES = tuple(TYPE_SAMPLES)


def _size(rng: random.Random) -> int:
    return rng.randrange(1, SIZE_LIMIT)


def _pair(rng: random.Random, low: int, high: int) -> list[int]:
    return [rng.randrange(low, high), rng.randrange(low, high)]


def _draw(kind: str, rng: random.Random) -> Config:
    """One unconstrained draw of a layer's parameters from Table 4 (scaled sizes)."""
    config: Config = {"type": kind}
    if kind == "Linear":
        return config | {"c_in": _size(rng), "c_out": _size(rng)}
    config |= {"h": _size(rng), "w": _size(rng), "c": _size(rng)}
    if kind == "Convolution":
        config |= {
            "c_out": _size(rng),
            "kernel": _pair(rng, 1, 10),
            "stride": _pair(rng, 1, 10),
            "padding": _pair(rng, 0, 10),
            "dilation": _pair(rng, 1, 5),
        }
    elif kind in ("AveragePooling", "MaxPooling"):
        config |= {
            "kernel": _pair(rng, 1, 10),
            "stride": _pair(rng, 1, 10),
            "padding": _pair(rng, 0, 10),
        }
    elif kind == "Add":
        config["inputs"] = rng.randrange(2, 10)
    return config


def _output_size(size: int, kernel: int, stride: int, padding: int, dilation: int = 1) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def cost(config: Config) -> tuple[int, int] | None:
    """(multiply-accumulates, largest tensor's elements), or None if PyTorch refuses it.

    Example:
        >>> cost({"type": "Linear", "c_in": 10, "c_out": 20})
        (200, 20)
    """
    kind = config["type"]
    if kind == "Linear":
        return config["c_in"] * config["c_out"], max(config["c_in"], config["c_out"])
    h, w, c = config["h"], config["w"], config["c"]
    elements = h * w * c
    if kind not in ("Convolution", "AveragePooling", "MaxPooling"):
        return (elements if kind == "BatchNormalization" else 0), elements
    (k1, k2), (s1, s2), (p1, p2) = config["kernel"], config["stride"], config["padding"]
    d1, d2 = config.get("dilation", [1, 1])
    if kind != "Convolution" and (2 * p1 > k1 or 2 * p2 > k2):
        return None  # PyTorch: pad should be at most half of the kernel size
    h_out, w_out = _output_size(h, k1, s1, p1, d1), _output_size(w, k2, s2, p2, d2)
    if h_out < 1 or w_out < 1:
        return None
    c_out = config.get("c_out", c)
    groups = math.gcd(c, c_out)
    macs = h_out * w_out * c_out * (c // groups) * k1 * k2 if kind == "Convolution" else 0
    return macs, max(elements, h_out * w_out * c_out)


def sample(rng: random.Random) -> Config:
    """A random layer within the caps (module docstring).

    Example:
        >>> sample(random.Random(0))["type"] in LAYER_TYPES
        True
    """
    kind = rng.choices(LAYER_TYPES, weights=list(TYPE_SAMPLES.values()))[0]
    while True:
        config = _draw(kind, rng)
        found = cost(config)
        if found and found[0] <= MAX_LAYER_MACS and found[1] <= MAX_TENSOR_ELEMENTS:
            return config


def layer_module(config: Config) -> nn.Module | None:
    """The ``torch.nn`` layer of a configuration (None for Add, which is an operator)."""
    kind = config["type"]
    if kind == "Linear":
        return nn.Linear(config["c_in"], config["c_out"])
    if kind == "Convolution":
        c_in, c_out = config["c"], config["c_out"]
        return nn.Conv2d(
            c_in,
            c_out,
            tuple(config["kernel"]),
            tuple(config["stride"]),
            tuple(config["padding"]),
            tuple(config["dilation"]),
            groups=math.gcd(c_in, c_out),
        )
    pooling = {"AveragePooling": nn.AvgPool2d, "MaxPooling": nn.MaxPool2d}
    if kind in pooling:
        return pooling[kind](
            tuple(config["kernel"]), tuple(config["stride"]), tuple(config["padding"])
        )
    simple: dict[str, Any] = {
        "BatchNormalization": lambda: nn.BatchNorm2d(config["c"]),
        "ReLU": nn.ReLU,
        "GlobalAveragePooling": lambda: nn.AdaptiveAvgPool2d(1),
        "Add": lambda: None,
    }
    return simple[kind]()


def layer_snippet(config: Config) -> str:
    """The snippet of a layer configuration (runnable; see :mod:`nnlat.code.snippet`).

    Example:
        >>> print(layer_snippet({"type": "ReLU", "h": 2, "w": 3, "c": 4}))
        layer=torch.nn.ReLU(inplace=False)
        x0=torch.randn(1,4,2,3)
        y=layer(x0)
        assert(y.shape==(1,4,2,3))
    """
    kind = config["type"]
    shape = (1, config["c_in"]) if kind == "Linear" else (1, config["c"], config["h"], config["w"])
    with torch.device("meta"):
        layer = layer_module(config)
        x = torch.empty(shape)
        if layer is None:  # Add: M inputs of the same shape
            count = config["inputs"]
            call = "+".join(f"x{i}" for i in range(count))
            return render_snippet(call, [(shape, torch.float32)] * count, x)
        return render_snippet(
            "layer(x0)", [(shape, torch.float32)], layer(x), constructor_text(layer)
        )


def build(config: Config) -> nn.Module:
    """The layer as a module timing its snippet (extra inputs of an Add are buffers)."""
    return SnippetModule(layer_snippet(config))


def input_shape(config: Config) -> tuple[int, ...]:
    """The shape of the snippet's first input ``x0``."""
    return snippet_input_shapes(layer_snippet(config))[0]


def output_shape(config: Config) -> tuple[int, ...]:
    """The layer's output shape."""
    return output_on_meta(lambda: build(config), input_shape(config))


def _snippet_text(config: Config) -> str:
    return str(config["snippet"])


def output_on_meta(module: Callable[[], nn.Module], shape: Sequence[int]) -> tuple[int, ...]:
    """The output shape of ``module()`` run on the meta device (``()``: not one tensor)."""
    with torch.device("meta"):
        out = module()(torch.empty(tuple(shape)))
    return tuple(out.shape) if isinstance(out, torch.Tensor) else ()


def not_sampled(reason: str) -> Callable[[random.Random], Config]:
    """A ``Family.sample`` for a family whose variants are given, never drawn."""

    def sample(rng: random.Random) -> Config:
        raise ValueError(reason)

    return sample


def _snippet_output(config: Config) -> tuple[int, ...]:
    text = _snippet_text(config)
    return output_on_meta(lambda: SnippetModule(text), snippet_input_shapes(text)[0])


LAYERS = Family(
    name="cobra-layer",
    summary="COBRA's random single layers (Table 4's eight types, sizes scaled to one core)",
    sample=sample,
    build=build,
    input_shape=input_shape,
    output_shape=output_shape,
)

SNIPPETS = Family(
    name="cobra-snippet",
    summary="one snippet the interpreter extracted from a network's code, timed alone",
    sample=not_sampled("cobra-snippet variants come from networks' code, not from a sampler"),
    build=lambda config: SnippetModule(_snippet_text(config)),
    input_shape=lambda config: snippet_input_shapes(_snippet_text(config))[0],
    output_shape=_snippet_output,
)
"""A snippet of a network (``{"snippet": text}``): what the layer-wise sum and BRP-NAS++
need, each layer of a network timed alone (:func:`nnlat.datasets.cobra.measure_snippets`)."""
