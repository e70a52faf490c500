"""AlexNet: five convolutions with three max-pools, then a three-layer MLP head.

Krizhevsky, Sutskever & Hinton, "ImageNet Classification with Deep Convolutional Neural
Networks", NeurIPS 2012; the single-tower layout of Krizhevsky, "One weird trick for
parallelizing convolutional neural networks" (arXiv:1404.5997), as in torchvision, so the
canonical ``alexnet`` matches torchvision parameter for parameter.

A configuration::

    {"widths": [channels of conv 1..5], "kernel_sizes": [kernel of conv 1..5],
     "pool_size": int, "classifier_width": int,
     "resolution": int, "num_classes": int}

Conv 1 has stride 4 and padding 2; the others are "same"-padded. The legacy ONNX
exporter handles the adaptive pool only when ``pool_size`` divides the final feature map
(:func:`feature_size`), so samplers pick it from its divisors.
"""

from __future__ import annotations

import random

from torch import nn

from nnlat.zoo.blocks import make_divisible
from nnlat.zoo.family import Config, Family

_WIDTHS = (64, 192, 384, 256, 256)
# Layers 1, 2 and 5 are followed by a 3x3 stride-2 max-pool.
_POOLED = (True, True, False, False, True)
_STEM_STRIDE, _STEM_PADDING = 4, 2
_WIDTH_SCALES = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5)


def build(config: Config) -> nn.Module:
    """Build the AlexNet of ``config``.

    Args:
        config: an AlexNet configuration (see the module docstring).

    Returns:
        The network, mapping ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    layers: list[nn.Module] = []
    cin = 3
    convs = zip(config["widths"], config["kernel_sizes"], strict=True)
    for index, (width, kernel) in enumerate(convs):
        stride, padding = (_STEM_STRIDE, _STEM_PADDING) if index == 0 else (1, kernel // 2)
        layers += [nn.Conv2d(cin, width, kernel, stride, padding), nn.ReLU(inplace=True)]
        if _POOLED[index]:
            layers.append(nn.MaxPool2d(3, stride=2))
        cin = width
    pool, hidden = config["pool_size"], config["classifier_width"]
    layers += [
        nn.AdaptiveAvgPool2d(pool),
        nn.Flatten(),
        nn.Dropout(0.5),
        nn.Linear(cin * pool * pool, hidden),
        nn.ReLU(inplace=True),
        nn.Dropout(0.5),
        nn.Linear(hidden, hidden),
        nn.ReLU(inplace=True),
        nn.Linear(hidden, config["num_classes"]),
    ]
    return nn.Sequential(*layers)


def feature_size(resolution: int, kernel_sizes: list[int]) -> int:
    """The side of the last feature map, before the adaptive pool.

    Args:
        resolution: input height (= width) in pixels.
        kernel_sizes: the five convolution kernels.

    Returns:
        The side in pixels (6 for the canonical AlexNet at 224 px).

    Example:
        >>> feature_size(224, [11, 5, 3, 3, 3])
        6
    """
    size = (resolution + 2 * _STEM_PADDING - kernel_sizes[0]) // _STEM_STRIDE + 1
    for pooled in _POOLED:  # the later convs keep the size; only the pools shrink it
        if pooled:
            size = (size - 3) // 2 + 1
    return size


def sample(rng: random.Random) -> Config:
    """Draw an AlexNet variant: per-layer widths and kernels, head width and resolution.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration; variants stay under about 2 GMACs.
    """
    resolution = rng.randrange(96, 257, 32)
    kernels = [rng.choice([7, 9, 11]), rng.choice([3, 5, 7])]
    kernels += [rng.choice([3, 5]) for _ in range(3)]
    size = feature_size(resolution, kernels)
    return {
        "widths": [make_divisible(w * rng.choice(_WIDTH_SCALES)) for w in _WIDTHS],
        "kernel_sizes": kernels,
        "pool_size": rng.choice([d for d in range(1, size + 1) if size % d == 0]),
        "classifier_width": rng.choice([512, 1024, 2048, 4096]),
        "resolution": resolution,
        "num_classes": 1000,
    }


FAMILY = Family(
    name="alexnet",
    summary="AlexNet (Krizhevsky et al. 2012): five convs and an MLP head, torchvision layout",
    sample=sample,
    build=build,
    canonical={
        "alexnet": {
            "widths": list(_WIDTHS),
            "kernel_sizes": [11, 5, 3, 3, 3],
            "pool_size": 6,
            "classifier_width": 4096,
            "resolution": 224,
            "num_classes": 1000,
        },
    },
)
