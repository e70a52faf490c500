"""Tests of the segnet family: seeded sampling, budgets, dense-prediction ops, shapes, MACs."""

import json
import random

import pytest
import torch

from nnlat.graph import Graph, graph_cost
from nnlat.zoo import get_family
from nnlat.zoo.segnet import (
    ACTIVATIONS,
    CANONICAL,
    MAX_CLASSES,
    MAX_MACS,
    RESOLUTIONS,
    build,
    estimate_macs,
    output_shape,
)

FAMILY = get_family("segnet")
SAMPLES = [FAMILY.sample(random.Random(seed)) for seed in range(200)]


def small(decoder: dict, activation: str = "relu", num_classes: int = 5) -> dict:
    """A cheap 128x128 config: three mixed encoder stages and ``decoder``."""
    return {
        "resolution": 128,
        "num_classes": num_classes,
        "activation": activation,
        "stages": [
            {"channels": 16, "blocks": 1, "block": "plain", "kernel": 3, "expansion": 1},
            {"channels": 24, "blocks": 2, "block": "dwsep", "kernel": 5, "expansion": 1},
            {"channels": 32, "blocks": 1, "block": "inverted", "kernel": 3, "expansion": 4},
        ],
        "decoder": decoder,
    }


def unet(upsample: str = "convtranspose", final_resize: bool = False) -> dict:
    return {
        "kind": "unet",
        "upsample": upsample,
        "channels": [16, 24],
        "blocks": 2,
        "block": "plain",
        "final_resize": final_resize,
    }


def fpn(upsample: str = "nearest", heads: str = "per_level", sigmoid: bool = True) -> dict:
    return {
        "kind": "fpn",
        "levels": 3,
        "channels": 32,
        "upsample": upsample,
        "heads": heads,
        "head_convs": 1,
        "predictor_kernel": 3,
        "sigmoid": sigmoid,
    }


def ops(graph: Graph) -> list[str]:
    return [node.op_type for node in graph.nodes]


def test_sampling_is_deterministic_per_seed() -> None:
    for seed in range(20):
        assert FAMILY.sample(random.Random(seed)) == SAMPLES[seed]


def test_sampling_is_diverse_bounded_and_json_able() -> None:
    assert len({json.dumps(c, sort_keys=True) for c in SAMPLES}) >= 190
    for config in SAMPLES:
        assert json.loads(json.dumps(config)) == config
        assert config["resolution"] in RESOLUTIONS
        assert 1 <= config["num_classes"] <= MAX_CLASSES
        assert 3 <= len(config["stages"]) <= 5
        assert all(16 <= s["channels"] <= 256 for s in config["stages"])
        assert estimate_macs(config) <= MAX_MACS
    # Every kind of decoder, upsampling and activation is drawn.
    assert {c["decoder"]["kind"] for c in SAMPLES} == {"unet", "fpn"}
    assert {c["decoder"]["upsample"] for c in SAMPLES} == {"convtranspose", "nearest", "bilinear"}
    assert {c["activation"] for c in SAMPLES} == set(ACTIVATIONS)


def test_unet_with_conv_transpose_exports_and_runs() -> None:
    config = small(unet("convtranspose"))
    graph = FAMILY.model(config).to_graph()
    assert ops(graph).count("ConvTranspose") == 2  # one per decoder level
    assert ops(graph).count("Concat") == 2  # the skip connections
    assert "Resize" not in ops(graph)
    assert graph.outputs[0].shape == (1, 5, 64, 64) == output_shape(config)
    with torch.no_grad():
        out = build(config).eval()(torch.randn(1, 3, 128, 128))
    assert out.shape == (1, 5, 64, 64)


@pytest.mark.parametrize(("upsample", "mode"), [("nearest", "nearest"), ("bilinear", "linear")])
def test_unet_with_resize_upsamples_to_the_input_size(upsample: str, mode: str) -> None:
    config = small(unet(upsample, final_resize=True))
    graph = FAMILY.model(config).to_graph()
    resizes = [node for node in graph.nodes if node.op_type == "Resize"]
    # Two scale-2 upsamplings, then the bilinear resize of the logits to the input size.
    assert [node.attr("mode") for node in resizes] == [mode, mode, "linear"]
    assert "ConvTranspose" not in ops(graph)
    assert graph.outputs[0].shape == (1, 5, 128, 128) == output_shape(config)
    with torch.no_grad():
        out = build(config).eval()(torch.randn(1, 3, 128, 128))
    assert out.shape == (1, 5, 128, 128)


def test_fpn_with_resize_exports_and_runs() -> None:
    config = small(fpn("bilinear"), activation="hardswish", num_classes=7)
    graph = FAMILY.model(config).to_graph()
    resizes = [node for node in graph.nodes if node.op_type == "Resize"]
    assert [node.attr("mode") for node in resizes] == ["linear", "linear"]  # top-down path
    assert ops(graph).count("Add") >= 2 + 1  # top-down merges + the inverted residual
    assert ops(graph).count("Sigmoid") == 3  # one per level's class map
    assert "Concat" in ops(graph) and "HardSwish" in ops(graph)
    # Levels at strides 2, 4, 8 of 128: 64², 32² and 16² positions, each 4 box + 7 classes.
    expected = (1, 4 + 7, 64 * 64 + 32 * 32 + 16 * 16)
    assert graph.outputs[0].shape == expected
    with torch.no_grad():
        out = build(config).eval()(torch.randn(1, 3, 128, 128))
    assert out.shape == expected == output_shape(config)


def test_shared_heads_have_one_set_of_weights() -> None:
    shared = build(small(fpn(heads="shared")))
    per_level = build(small(fpn(heads="per_level")))
    assert len(shared.heads) == 1 and len(per_level.heads) == 3
    count = sum(p.numel() for p in shared.heads.parameters())
    assert sum(p.numel() for p in per_level.heads.parameters()) == 3 * count


@pytest.mark.parametrize(
    ("activation", "op"),
    [
        ("relu", "Relu"),
        ("hardswish", "HardSwish"),
        ("silu", "Sigmoid"),
        ("gelu", "Erf"),
        ("leakyrelu", "LeakyRelu"),
    ],
)
def test_one_activation_per_model(activation: str, op: str) -> None:
    graph = FAMILY.model(small(unet("nearest"), activation=activation)).to_graph()
    assert op in ops(graph)
    others = {"Relu", "HardSwish", "Erf", "LeakyRelu"} - {op}
    assert not others & set(ops(graph))


@pytest.mark.parametrize(
    "config",
    [CANONICAL["unet_small"], CANONICAL["fpn_detector"], SAMPLES[0], SAMPLES[1], SAMPLES[2]],
    ids=["unet_small", "fpn_detector", "sample0", "sample1", "sample2"],
)
def test_estimated_macs_match_the_exported_graph(config: dict) -> None:
    graph = FAMILY.model(config).to_graph()
    assert graph.outputs[0].shape == output_shape(config)
    cost = graph_cost(graph)
    assert not cost.unknown_ops and not cost.uncosted_ops
    assert estimate_macs(config) == pytest.approx(cost.macs, rel=0.01)


def test_the_smallest_samples_of_each_decoder_run_to_their_output_shape() -> None:
    for kind in ("unet", "fpn"):
        config = min(
            (c for c in SAMPLES if c["decoder"]["kind"] == kind), key=lambda c: c["resolution"]
        )
        with torch.no_grad():
            out = build(config).eval()(torch.randn(FAMILY.input_shape(config)))
        assert out.shape == output_shape(config)


def test_canonical_configs_are_within_budget() -> None:
    assert set(CANONICAL) == set(FAMILY.canonical)
    for config in CANONICAL.values():
        assert estimate_macs(config) <= MAX_MACS


def test_build_rejects_invalid_configs() -> None:
    with pytest.raises(ValueError, match="unknown activation"):
        build(small(unet(), activation="tanh"))
    with pytest.raises(ValueError, match="unknown decoder"):
        build(small({"kind": "deeplab"}))
    config = small(unet())
    config["decoder"]["channels"] = [16]
    with pytest.raises(ValueError, match="one width per stage"):
        build(config)
    config = small(unet())
    config["resolution"] = 100
    with pytest.raises(ValueError, match="divide resolution"):
        build(config)
