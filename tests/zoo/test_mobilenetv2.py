"""Tests of the MobileNetV2 family: canonical sizes, seeded sampling, ONNX export, forward."""

import json
import random

import pytest
import torch

from nnlat.zoo import get_family

FAMILY = get_family("mobilenetv2")


@pytest.mark.parametrize(
    ("name", "params"),
    [("mobilenet_v2", 3_504_872)],
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


def test_canonical_exports_with_clipped_relu6() -> None:
    graph = FAMILY.model(FAMILY.canonical["mobilenet_v2"]).to_onnx().graph
    ops = {node.op_type for node in graph.node}
    assert {"Conv", "Clip", "Add", "Gemm"} <= ops
    assert "BatchNormalization" not in ops  # folded into the convolutions
