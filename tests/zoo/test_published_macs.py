"""Each family's canonical configuration reproduces the published architecture.

MACs are nnlat's own count (``nnlat.graph.cost``) on the exported, normalised ONNX
graph; the published figures are the MAC counts of the original papers as reported by
torchvision's model tables. Tolerance: 2 %.
"""

from __future__ import annotations

import pytest

from nnlat.graph import graph_cost
from nnlat.zoo import get_family

# (family, canonical config, published G MACs at its default resolution)
PUBLISHED_GMACS = [
    ("resnet", "resnet18", 1.82),
    ("resnet", "resnet34", 3.66),
    ("resnet", "resnet50", 4.09),
    ("vgg", "vgg11", 7.61),
    ("vgg", "vgg16", 15.47),
    ("vgg", "vgg19", 19.63),
    ("alexnet", "alexnet", 0.714),
    ("googlenet", "googlenet", 1.50),
    ("squeezenet", "squeezenet1_0", 0.82),
    ("squeezenet", "squeezenet1_1", 0.35),
    ("mobilenetv2", "mobilenet_v2", 0.300),
    ("mobilenetv3", "mobilenet_v3_large", 0.217),
    ("mobilenetv3", "mobilenet_v3_small", 0.057),
    ("mnasnet", "mnasnet1_0", 0.314),
    ("efficientnet", "efficientnet_b0", 0.386),
    ("vit", "vit_b_16", 17.56),
]


@pytest.mark.parametrize(("family", "name", "published"), PUBLISHED_GMACS)
def test_canonical_macs_match_published(family: str, name: str, published: float) -> None:
    spec = get_family(family)
    graph = spec.model(spec.canonical[name]).to_graph()
    gmacs = graph_cost(graph).macs / 1e9
    assert gmacs == pytest.approx(published, rel=0.02), f"{name}: {gmacs:.3f} G vs {published} G"
