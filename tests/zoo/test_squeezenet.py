"""Tests of the SqueezeNet family: canonical sizes, seeded sampling, ONNX export, forward."""

import json
import random

import pytest
import torch

from nnlat.zoo import get_family
from nnlat.zoo.squeezenet import fire_modules

FAMILY = get_family("squeezenet")


@pytest.mark.parametrize(
    ("name", "params"),
    [("squeezenet1_0", 1_248_424), ("squeezenet1_1", 1_235_496)],
)
def test_canonical_parameter_count_matches_torchvision(name: str, params: int) -> None:
    with torch.device("meta"):
        module = FAMILY.build(FAMILY.canonical[name])
    assert sum(p.numel() for p in module.parameters()) == params
    assert FAMILY.input_shape(FAMILY.canonical[name]) == (1, 3, 224, 224)


def test_sampling_is_deterministic_per_seed() -> None:
    for seed in range(20):
        assert FAMILY.sample(random.Random(seed)) == FAMILY.sample(random.Random(seed))


def test_sampling_is_diverse_and_json_able() -> None:
    configs = [FAMILY.sample(random.Random(seed)) for seed in range(200)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) >= 190
    for config in configs:
        assert json.loads(json.dumps(config)) == config
        assert {"resolution", "num_classes"} <= config.keys()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sample_exports_to_onnx(seed: int) -> None:
    model = FAMILY.model(FAMILY.sample(random.Random(seed)))
    graph = model.to_onnx().graph
    assert len(graph.node) > 0
    dims = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
    assert tuple(dims) == model.input_shape


def test_forward_of_a_small_sample_gives_logits() -> None:
    samples = (FAMILY.sample(random.Random(seed)) for seed in range(100))
    config = next(c for c in samples if c["resolution"] == 96)
    module = FAMILY.build(config).eval()
    with torch.no_grad():
        logits = module(torch.randn(FAMILY.input_shape(config)))
    assert logits.shape == (1, config["num_classes"])


def test_fire_modules_reproduce_squeezenet_1_0() -> None:
    stages = fire_modules([3, 4, 1], base_e=128, incr_e=128, freq=2, pct_3x3=0.5, sr=0.125)
    assert stages == [
        [[16, 64, 64], [16, 64, 64], [32, 128, 128]],
        [[32, 128, 128], [48, 192, 192], [48, 192, 192], [64, 256, 256]],
        [[64, 256, 256]],
    ]
