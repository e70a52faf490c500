"""Tests of the seqnet family: seeded sampling, recurrent and attention ops in the ONNX
export, forward shapes, and costing of the exported graph by nnlat.graph."""

import json
import random
from collections import Counter

import pytest
import torch

from nnlat.graph import graph_cost, load
from nnlat.zoo import get_family
from nnlat.zoo.seqnet import MAX_MACS, estimate_macs, output_frames

FAMILY = get_family("seqnet")

# Every kind of part at once: a strided GELU+BN front end, a bidirectional LSTM, a
# unidirectional GRU, and a transformer block that needs an input projection (256 ≠ 192).
MIXED = {
    "frames": 60,
    "features": 80,
    "num_classes": 29,
    "frontend": [
        {"channels": 128, "kernel": 5, "stride": 2, "activation": "gelu", "batch_norm": True},
        {"channels": 96, "kernel": 3, "stride": 1, "activation": "hardswish", "batch_norm": False},
    ],
    "blocks": [
        {"kind": "lstm", "hidden": 64, "bidirectional": True},
        {"kind": "gru", "hidden": 256, "bidirectional": False},
        {"kind": "transformer", "dim": 192, "heads": 3, "mlp_dim": 384},
    ],
}


def _ops(config: dict) -> Counter[str]:
    return Counter(node.op_type for node in FAMILY.model(config).to_onnx().graph.node)


def test_canonical_crnn_parameter_count_follows_from_its_definition() -> None:
    # A (bidirectional) LSTM direction has 4 gates of input and recurrent weights and two
    # biases: 4h(in + h) + 8h. Two 512 → 2x256 layers, then a 512 → 37 Linear.
    hidden, width = 256, 512
    lstm = 2 * (4 * hidden * (width + hidden) + 8 * hidden)
    expected = 2 * lstm + (2 * hidden * 37 + 37)
    with torch.device("meta"):
        module = FAMILY.build(FAMILY.canonical["crnn_rnn"])
    assert sum(p.numel() for p in module.parameters()) == expected == 3_172_901
    assert FAMILY.input_shape(FAMILY.canonical["crnn_rnn"]) == (1, 26, 512)


def test_sampling_is_deterministic_diverse_bounded_and_json_able() -> None:
    configs = [FAMILY.sample(random.Random(seed)) for seed in range(200)]
    assert configs == [FAMILY.sample(random.Random(seed)) for seed in range(200)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) >= 190
    for config in configs:
        assert json.loads(json.dumps(config)) == config
        assert config.keys() == {"frames", "features", "num_classes", "frontend", "blocks"}
        assert 25 <= config["frames"] <= 400
        assert 0 <= len(config["frontend"]) <= 3
        assert 1 <= len(config["blocks"]) <= 4
        for block in config["blocks"]:
            if block["kind"] == "transformer":
                assert block["dim"] % block["heads"] == 0
        assert estimate_macs(config) <= MAX_MACS
    kinds = [{b["kind"] for b in c["blocks"]} for c in configs]
    assert set().union(*kinds) == {"lstm", "gru", "transformer"}
    assert any(len(k) > 1 for k in kinds)  # kinds mix within a model


def test_canonical_crnn_exports_two_bidirectional_lstm_nodes() -> None:
    graph = FAMILY.model(FAMILY.canonical["crnn_rnn"]).to_graph()
    lstms = [node for node in graph.nodes if node.op_type == "LSTM"]
    assert len(lstms) == 2
    assert {node.attr("direction") for node in lstms} == {"bidirectional"}
    assert {node.attr("hidden_size") for node in lstms} == {256}


def test_mixed_config_exports_every_kind_of_op() -> None:
    ops = _ops(MIXED)
    assert ops["Conv"] == 2  # BatchNorm folded into its convolution
    assert ops["BatchNormalization"] == 0
    assert (ops["LSTM"], ops["GRU"], ops["Softmax"]) == (1, 1, 1)
    assert ops["MatMul"] >= 2  # q @ k^T and attention @ v
    assert ops["LayerNormalization"] == 3  # two in the block, one before the head
    assert ops["Erf"] >= 2 and ops["HardSwish"] == 1  # GELU front end and MLP


@pytest.mark.parametrize("seed", range(4))
def test_a_sample_exports_the_nodes_its_config_names(seed: int) -> None:
    config = FAMILY.sample(random.Random(seed))
    ops = _ops(config)
    kinds = Counter(block["kind"] for block in config["blocks"])
    assert ops["LSTM"] == kinds["lstm"]
    assert ops["GRU"] == kinds["gru"]
    assert ops["Softmax"] == kinds["transformer"]
    assert ops["Conv"] == len(config["frontend"])


@pytest.mark.parametrize("config", [MIXED, FAMILY.canonical["crnn_rnn"]], ids=["mixed", "crnn"])
def test_forward_gives_per_frame_logits(config: dict) -> None:
    module = FAMILY.build(config).eval()
    with torch.no_grad():
        logits = module(torch.randn(FAMILY.input_shape(config)))
    assert logits.shape == (1, output_frames(config), config["num_classes"])
    assert output_frames(MIXED) == 30  # the stride-2 front end halves 60 frames


def test_graph_costs_recurrent_nodes_and_matches_estimate() -> None:
    onnx_model = FAMILY.model(MIXED).to_onnx()
    cost = graph_cost(load(onnx_model))
    assert not cost.unknown_ops and not cost.uncosted_ops
    rnn = {node.op: node.macs for node in cost.nodes if node.family == "rnn"}
    # 30 frames x directions x gates x hidden x (input + hidden)
    assert rnn == {"LSTM": 30 * 2 * 4 * 64 * (96 + 64), "GRU": 30 * 3 * 256 * (128 + 256)}
    assert cost.macs == estimate_macs(MIXED)
    # The exported zero initial state follows the input's batch: it loads at batch 4 too.
    batched = load(onnx_model, batch_size=4)
    assert batched.outputs[0].shape == (4, 30, 29)
    assert graph_cost(batched).macs == 4 * cost.macs
