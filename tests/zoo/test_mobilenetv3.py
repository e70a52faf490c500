"""Tests of the MobileNetV3 family: canonical sizes, seeded sampling, ONNX export, forward."""

import json
import random

import pytest
import torch

from nnlat.zoo import get_family
from nnlat.zoo.blocks import make_divisible

FAMILY = get_family("mobilenetv3")


@pytest.mark.parametrize(
    ("name", "params"),
    [("mobilenet_v3_large", 5_483_032), ("mobilenet_v3_small", 2_542_856)],
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


def test_canonical_exports_with_hardswish_and_squeeze_excite() -> None:
    graph = FAMILY.model(FAMILY.canonical["mobilenet_v3_small"]).to_onnx().graph
    ops = {node.op_type for node in graph.node}
    assert {"Conv", "HardSwish", "HardSigmoid", "GlobalAveragePool", "Mul"} <= ops


@pytest.mark.parametrize("config", ["mobilenet_v3_large", "mobilenet_v3_small"])
def test_canonical_tables_are_consistent(config: str) -> None:
    canonical = FAMILY.canonical[config]
    per_block = ["kernels", "expanded_channels", "channels", "se", "activations", "strides"]
    assert len({len(canonical[key]) for key in per_block}) == 1
    assert canonical["head_channels"] == 6 * canonical["channels"][-1]


def test_make_divisible_follows_the_mobilenet_rule() -> None:
    assert make_divisible(16 * 0.75) == 16
    assert make_divisible(24 * 0.5) == 16
    assert make_divisible(40 * 1.25) == 48
    assert make_divisible(3) == 8
