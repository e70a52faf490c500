"""Tests of the MobileNetV2 family (shared contract: test_family_contract.py)."""

from nnlat.zoo import get_family

FAMILY = get_family("mobilenetv2")


def test_canonical_exports_with_clipped_relu6() -> None:
    graph = FAMILY.model(FAMILY.canonical["mobilenet_v2"]).to_onnx().graph
    ops = {node.op_type for node in graph.node}
    assert {"Conv", "Clip", "Add", "Gemm"} <= ops
    assert "BatchNormalization" not in ops  # folded into the convolutions
