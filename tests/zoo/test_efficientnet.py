"""Tests of the EfficientNet family (shared contract: test_family_contract.py)."""

import torch

from nnlat.zoo import get_family

FAMILY = get_family("efficientnet")


def test_canonical_exports_with_silu_and_squeeze_excite() -> None:
    graph = FAMILY.model(FAMILY.canonical["efficientnet_b0"]).to_onnx().graph
    ops = [node.op_type for node in graph.node]
    assert ops.count("GlobalAveragePool") == 17  # 16 squeeze-excites and the head
    assert {"Conv", "Sigmoid", "Mul", "Gemm"} <= set(ops)


def test_squeeze_excite_can_be_switched_off() -> None:
    config = dict(FAMILY.canonical["efficientnet_b0"], se=[False] * 7)
    with torch.device("meta"):
        module = FAMILY.build(config)
    assert sum(p.numel() for p in module.parameters()) < 5_288_548
