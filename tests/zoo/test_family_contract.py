"""The contract every model family keeps: seeded, diverse, JSON-able, exportable, runnable.

Family-specific checks (block structure, dataset architectures) live in
``test_<family>.py``; published MACs in ``test_published_macs.py``.
"""

from __future__ import annotations

import json
import math
import random

import pytest
import torch

from nnlat.zoo import FAMILY_MODULES, get_family
from nnlat.zoo.family import square_image_input

# torchvision's parameter counts of the canonical configurations (1000 classes).
PUBLISHED_PARAMS = [
    ("resnet", "resnet18", 11_689_512),
    ("resnet", "resnet34", 21_797_672),
    ("resnet", "resnet50", 25_557_032),
    ("vgg", "vgg11", 132_863_336),
    ("vgg", "vgg16", 138_357_544),
    ("vgg", "vgg19", 143_667_240),
    ("alexnet", "alexnet", 61_100_840),
    ("googlenet", "googlenet", 6_624_904),
    ("squeezenet", "squeezenet1_0", 1_248_424),
    ("squeezenet", "squeezenet1_1", 1_235_496),
    ("mobilenetv2", "mobilenet_v2", 3_504_872),
    ("mobilenetv3", "mobilenet_v3_large", 5_483_032),
    ("mobilenetv3", "mobilenet_v3_small", 2_542_856),
    ("mnasnet", "mnasnet1_0", 4_383_312),
    ("efficientnet", "efficientnet_b0", 5_288_548),
    ("vit", "vit_b_16", 86_567_656),
]


@pytest.mark.parametrize(("family", "name", "params"), PUBLISHED_PARAMS)
def test_canonical_parameter_count_matches_published(family: str, name: str, params: int) -> None:
    spec = get_family(family)
    with torch.device("meta"):
        module = spec.build(spec.canonical[name])
    assert sum(p.numel() for p in module.parameters()) == params


@pytest.mark.parametrize("family", FAMILY_MODULES)
def test_sampling_is_deterministic_per_seed(family: str) -> None:
    spec = get_family(family)
    for seed in range(20):
        assert spec.sample(random.Random(seed)) == spec.sample(random.Random(seed))


@pytest.mark.parametrize("family", FAMILY_MODULES)
def test_sampling_is_diverse_and_json_able(family: str) -> None:
    spec = get_family(family)
    configs = [spec.sample(random.Random(seed)) for seed in range(200)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) >= 190
    for config in configs:
        assert json.loads(json.dumps(config)) == config
        assert "num_classes" in config
        if spec.input_shape is square_image_input:
            assert "resolution" in config


@pytest.mark.parametrize("family", FAMILY_MODULES)
def test_a_sample_exports_to_onnx_with_its_input_shape(family: str) -> None:
    spec = get_family(family)
    model = spec.model(spec.sample(random.Random(1)))
    graph = model.to_onnx().graph
    assert len(graph.node) > 0
    dims = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
    assert tuple(dims) == model.input_shape


@pytest.mark.parametrize("family", FAMILY_MODULES)
def test_the_smallest_sample_runs_forward_to_its_output_shape(family: str) -> None:
    spec = get_family(family)
    config = min(
        (spec.sample(random.Random(seed)) for seed in range(100)),
        key=lambda c: math.prod(spec.input_shape(c)),
    )
    module = spec.build(config).eval()
    with torch.no_grad():
        output = module(torch.randn(spec.input_shape(config)))
    assert output.shape == spec.output_shape(config)
