"""Tests of the MobileNetV3 family (shared contract: test_family_contract.py)."""

import pytest

from nnlat.zoo import get_family
from nnlat.zoo.blocks import make_divisible

FAMILY = get_family("mobilenetv3")


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
