"""Tests of the random-DAG family: seeded sampling, pruning, budgets, build, export."""

import json
import random

import pytest
import torch

from nnlat.zoo import get_family
from nnlat.zoo.randdag import FAMILY, MAX_MACS, RESOLUTIONS, build, macs

SAMPLES = [FAMILY.sample(random.Random(seed)) for seed in range(200)]


def hooked_macs(config: dict) -> int:
    """Conv and Linear multiply-accumulates counted on a meta-device forward."""
    total = 0

    def count(module: torch.nn.Module, _: object, out: torch.Tensor) -> None:
        nonlocal total
        if isinstance(module, torch.nn.Conv2d):
            kh, kw = module.kernel_size
            total += out.numel() * module.in_channels // module.groups * kh * kw
        elif isinstance(module, torch.nn.Linear):
            total += module.in_features * module.out_features

    with torch.device("meta"):
        module = build(config)
        for m in module.modules():
            m.register_forward_hook(count)
        out = module(torch.empty(FAMILY.input_shape(config)))
    assert out.shape == (1, config["num_classes"])
    return total


def test_sampling_is_deterministic_per_seed() -> None:
    for seed in range(20):
        assert FAMILY.sample(random.Random(seed)) == SAMPLES[seed]


def test_sampling_is_diverse_and_json_able() -> None:
    assert len({json.dumps(c, sort_keys=True) for c in SAMPLES}) >= 190
    more = [FAMILY.sample(random.Random(seed)) for seed in range(3000)]
    assert len({json.dumps(c, sort_keys=True) for c in more}) >= 2000
    for config in SAMPLES:
        assert json.loads(json.dumps(config)) == config
        assert {"resolution", "num_classes", "layers"} <= config.keys()
        assert config["resolution"] in RESOLUTIONS
        assert FAMILY.input_shape(config) == (1, 3, config["resolution"], config["resolution"])


def test_samples_are_connected_and_pruned() -> None:
    for config in SAMPLES:
        layers = config["layers"]
        used = {i for spec in layers for i in spec["inputs"]}
        # Every node but the output feeds a later layer: no dangling layer is left.
        assert used == set(range(len(layers)))
        for node, spec in enumerate(layers, start=1):
            assert spec["inputs"] and all(0 <= i < node for i in spec["inputs"])
    assert max(len(c["layers"]) for c in SAMPLES) > 15
    assert any(len(spec["inputs"]) > 3 for c in SAMPLES for spec in c["layers"])


def test_samples_stay_within_the_compute_budget() -> None:
    assert max(macs(config) for config in SAMPLES) <= MAX_MACS
    # The sampler's own count agrees with one taken on the built module.
    for config in SAMPLES[:10]:
        assert macs(config) == hooked_macs(config)


def test_build_rejects_invalid_configs() -> None:
    config = json.loads(json.dumps(SAMPLES[0]))
    config["layers"][0]["inputs"] = [1]
    with pytest.raises(ValueError, match="earlier nodes"):
        build(config)
    config = {"resolution": 64, "num_classes": 10, "layers": [{"op": "lstm", "inputs": [0]}]}
    with pytest.raises(ValueError, match="unknown op"):
        build(config)
    config = {
        "resolution": 96,
        "num_classes": 10,
        "layers": [{"op": "conv", "inputs": [0], "channels": 32, "kernel": 3, "stride": 64}],
    }
    with pytest.raises(ValueError, match="does not divide"):
        build(config)


def test_multi_input_layers_get_adapters_only_where_shapes_differ() -> None:
    layers = [
        {"op": "conv", "inputs": [0], "channels": 32, "kernel": 3, "stride": 2},
        {"op": "maxpool", "inputs": [1]},
        {"op": "sepconv", "inputs": [0, 1, 2], "channels": 64, "kernel": 5, "stride": 1},
    ]
    module = build({"resolution": 64, "num_classes": 10, "layers": layers})
    # Node 0 (3 ch, /1) and node 1 (32 ch, /2) are brought to node 2's shape (32 ch, /4).
    assert sorted(module.adapters[2]) == ["0", "1"]
    assert module.adapters[2]["0"][0].stride == (4, 4)
    assert module.adapters[2]["1"][0].stride == (2, 2)
    with torch.no_grad():
        assert module.eval()(torch.randn(1, 3, 64, 64)).shape == (1, 10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_samples_export_and_run(seed: int) -> None:
    family = get_family("randdag")
    config = SAMPLES[seed]
    graph = family.model(config).to_onnx().graph
    assert [d.dim_value for d in graph.output[0].type.tensor_type.shape.dim] == [1, 1000]
    with torch.no_grad():
        logits = family.build(config).eval()(torch.randn(family.input_shape(config)))
    assert logits.shape == (1, 1000)
