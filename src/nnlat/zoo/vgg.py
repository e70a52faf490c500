"""VGG: plain stacks of convolutions in five max-pooled stages, then a wide MLP head.

Simonyan & Zisserman, "Very Deep Convolutional Networks for Large-Scale Image
Recognition", ICLR 2015 (arXiv:1409.1556). The layout follows torchvision's VGG: an
adaptive average pool to ``pool_size`` x ``pool_size`` (7 at 224 px, where it is a no-op)
feeds a three-layer classifier, so the canonical ``vgg11``/``vgg16``/``vgg19`` match
torchvision parameter for parameter. Variants may add BatchNorm after each convolution.

A configuration::

    {"depths": [convs per stage] * 5, "widths": [channels per stage] * 5,
     "kernel_sizes": [kernel per stage] * 5, "batch_norm": bool,
     "pool_size": int, "classifier_width": int,
     "resolution": int, "num_classes": int}

The legacy ONNX exporter handles an adaptive pool only when ``pool_size`` divides the
final feature map (``resolution // 32``), so samplers pick ``pool_size`` from its divisors.
"""

from __future__ import annotations

import random

from torch import nn

from nnlat.zoo.family import Config, Family

_STAGE_WIDTHS = (64, 128, 256, 512, 512)


def build(config: Config) -> nn.Module:
    """Build the VGG of ``config``.

    Args:
        config: a VGG configuration (see the module docstring).

    Returns:
        The network, mapping ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    batch_norm = config["batch_norm"]
    layers: list[nn.Module] = []
    cin = 3
    stages = zip(config["depths"], config["widths"], config["kernel_sizes"], strict=True)
    for depth, width, kernel in stages:
        for _ in range(depth):
            # torchvision keeps the conv bias even before BatchNorm; so do we, for equal counts.
            layers.append(nn.Conv2d(cin, width, kernel, padding=kernel // 2))
            if batch_norm:
                layers.append(nn.BatchNorm2d(width))
            layers.append(nn.ReLU(inplace=True))
            cin = width
        layers.append(nn.MaxPool2d(2, stride=2))
    pool, hidden = config["pool_size"], config["classifier_width"]
    layers += [
        nn.AdaptiveAvgPool2d(pool),
        nn.Flatten(),
        nn.Linear(cin * pool * pool, hidden),
        nn.ReLU(inplace=True),
        nn.Dropout(0.5),
        nn.Linear(hidden, hidden),
        nn.ReLU(inplace=True),
        nn.Dropout(0.5),
        nn.Linear(hidden, config["num_classes"]),
    ]
    return nn.Sequential(*layers)


def sample(rng: random.Random) -> Config:
    """Draw a VGG variant: depths, narrower widths, kernels, BatchNorm, head and resolution.

    Widths are an eighth to three eighths of VGG's, since full-width VGGs cost 8-20 GMACs.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration; most variants stay under about 2 GMACs.
    """
    resolution = rng.randrange(96, 257, 32)
    feature_size = resolution // 32  # five 2x2 max-pools
    return {
        # As in VGG's A-E tables, the costly full-resolution stages get at most two convs.
        "depths": [rng.randint(1, 2), rng.randint(1, 2)] + [rng.randint(1, 4) for _ in range(3)],
        "widths": [w * rng.choice([1, 2, 3]) // 8 for w in _STAGE_WIDTHS],
        "kernel_sizes": [rng.choice([3, 3, 5]) for _ in _STAGE_WIDTHS],
        "batch_norm": rng.random() < 0.5,
        "pool_size": rng.choice([1, feature_size]),
        "classifier_width": rng.choice([256, 512, 1024, 2048, 4096]),
        "resolution": resolution,
        "num_classes": 1000,
    }


def _canonical(depths: list[int]) -> Config:
    return {
        "depths": depths,
        "widths": list(_STAGE_WIDTHS),
        "kernel_sizes": [3] * 5,
        "batch_norm": False,
        "pool_size": 7,
        "classifier_width": 4096,
        "resolution": 224,
        "num_classes": 1000,
    }


FAMILY = Family(
    name="vgg",
    summary="VGG (Simonyan & Zisserman 2015): five conv stages and an MLP head",
    sample=sample,
    build=build,
    canonical={
        "vgg11": _canonical([1, 1, 2, 2, 2]),
        "vgg16": _canonical([2, 2, 3, 3, 3]),
        "vgg19": _canonical([2, 2, 4, 4, 4]),
    },
)
