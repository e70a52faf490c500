"""Tests of the Vision Transformer family: sizes, seeded sampling, ONNX export, forward."""

import json
import random

import pytest
import torch

from nnlat.zoo import get_family
from nnlat.zoo.vit import MAX_MACS, estimate_macs

FAMILY = get_family("vit")


@pytest.mark.parametrize(
    ("name", "params"),
    [("vit_b_16", 86_567_656), ("vit_s_16", 22_050_664), ("vit_ti_16", 5_717_416)],
)
def test_canonical_parameter_count_matches_published(name: str, params: int) -> None:
    with torch.device("meta"):
        module = FAMILY.build(FAMILY.canonical[name])
    assert sum(p.numel() for p in module.parameters()) == params
    assert FAMILY.input_shape(FAMILY.canonical[name]) == (1, 3, 224, 224)


@pytest.mark.parametrize(("name", "gmacs"), [("vit_b_16", 17.56), ("vit_s_16", 4.6)])
def test_canonical_macs_match_published(name: str, gmacs: float) -> None:
    assert estimate_macs(FAMILY.canonical[name]) / 1e9 == pytest.approx(gmacs, rel=0.02)


def test_sampling_is_diverse_bounded_and_json_able() -> None:
    configs = [FAMILY.sample(random.Random(seed)) for seed in range(200)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) >= 190
    for config in configs:
        assert json.loads(json.dumps(config)) == config
        assert {"resolution", "num_classes"} <= config.keys()
        assert config["resolution"] % config["patch_size"] == 0
        assert config["dim"] % config["heads"] == 0
        assert estimate_macs(config) <= MAX_MACS


def test_canonical_exports_attention_as_matmul_and_softmax() -> None:
    config = FAMILY.canonical["vit_ti_16"]
    ops = [node.op_type for node in FAMILY.model(config).to_onnx().graph.node]
    depth = config["depth"]
    assert ops.count("MatMul") >= 2 * depth  # q @ k^T and attention @ v per block
    assert ops.count("Softmax") == depth
    assert ops.count("LayerNormalization") == 2 * depth + 1
    assert "Erf" in ops or "Gelu" in ops
