"""Tests of the NAS-Bench-201 family: arch strings, published sizes, dataset archs, export."""

import csv
import json
import random

import pytest
import torch

from nnlat.datasets.published import published_table
from nnlat.zoo import get_family
from nnlat.zoo.nasbench201 import ALL_CONV3X3, FAMILY, arch_config, arch_string, parse_arch

HELP_CSV = published_table("nas-bench-201")
ALL_NONE = "|none~0|+|none~0|none~1|+|none~0|none~1|none~2|"


def dataset_archs(count: int) -> list[str]:
    with HELP_CSV.open(newline="") as f:
        rows = csv.DictReader(f)
        return [row["arch_str"] for row, _ in zip(rows, range(count), strict=False)]


def param_count(config: dict) -> int:
    with torch.device("meta"):
        module = FAMILY.build(config)
    return sum(p.numel() for p in module.parameters())


def test_parse_arch_round_trips() -> None:
    nodes = parse_arch(ALL_CONV3X3)
    assert nodes == [[("nor_conv_3x3", i) for i in range(j)] for j in (1, 2, 3)]
    for arch in dataset_archs(200):
        assert arch_string(parse_arch(arch)) == arch


@pytest.mark.parametrize(
    "arch",
    [
        "",
        "|nor_conv_3x3~0|",
        "|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|",
        "|conv~0|+|none~0|none~1|+|none~0|none~1|none~2|",
        "|none~1|+|none~0|none~1|+|none~0|none~1|none~2|",
        "|none~0|+|none~1|none~0|+|none~0|none~1|none~2|",
        "|none~0|+|none~0|+|none~0|none~1|none~2|",
        "none~0|+|none~0|none~1|+|none~0|none~1|none~2|",
        "|none0|+|none~0|none~1|+|none~0|none~1|none~2|",
        ALL_NONE + "+|none~0|",
    ],
)
def test_parse_arch_rejects_malformed_strings(arch: str) -> None:
    with pytest.raises(ValueError, match="NAS-Bench-201 arch"):
        parse_arch(arch)
    with pytest.raises(ValueError):
        arch_config(arch)


def test_parameter_counts_match_published_nasbench201() -> None:
    # NAS-Bench-201 (CIFAR-10) spans 0.073306 M (no conv: all none) to 1.531546 M params
    # (all nor_conv_3x3); CIFAR-100 adds 90 logits: 1.537396 M.
    largest = FAMILY.canonical["nb201_all_conv3x3"]
    assert param_count(largest) == pytest.approx(1_531_546, rel=0.01)
    assert param_count({**largest, "num_classes": 100}) == pytest.approx(1_537_396, rel=0.01)
    assert param_count(arch_config(ALL_NONE)) == pytest.approx(73_306, rel=0.01)
    assert FAMILY.input_shape(largest) == (1, 3, 32, 32)


def test_dataset_archs_build_export_and_run() -> None:
    family = get_family("nasbench201")
    for arch in dataset_archs(20):
        config = arch_config(arch)
        graph = family.model(config).to_onnx().graph
        assert [d.dim_value for d in graph.output[0].type.tensor_type.shape.dim] == [1, 10]
        with torch.no_grad():
            logits = family.build(config).eval()(torch.randn(family.input_shape(config)))
        assert logits.shape == (1, 10)


@pytest.mark.parametrize(
    "arch",
    [
        ALL_NONE,
        # Node 3 depends only on node 2, which is all zeros.
        "|nor_conv_3x3~0|+|none~0|none~1|+|none~0|none~1|nor_conv_3x3~2|",
    ],
)
def test_disconnected_arch_builds_and_exports(arch: str) -> None:
    config = arch_config(arch)
    graph = FAMILY.model(config).to_onnx().graph
    # The zero nodes are a multiplication by zero of the cell input, one per cell.
    assert sum(node.op_type == "Mul" for node in graph.node) == 15
    module = FAMILY.build(config).eval()
    with torch.no_grad():
        assert module(torch.randn(1, 3, 32, 32)).shape == (1, 10)


def test_none_edges_have_no_module() -> None:
    arch = "|skip_connect~0|+|none~0|avg_pool_3x3~1|+|none~0|none~1|nor_conv_1x1~2|"
    cell = FAMILY.build(arch_config(arch)).features[2]
    assert sorted(cell.edges) == ["1_0", "2_1", "3_2"]


def test_sampling_is_uniform_over_archs_and_deterministic() -> None:
    configs = [FAMILY.sample(random.Random(seed)) for seed in range(3000)]
    assert configs[:20] == [FAMILY.sample(random.Random(seed)) for seed in range(20)]
    archs = [c["arch"] for c in configs]
    assert len(set(archs)) >= 2000
    for config in configs[:50]:
        parse_arch(config["arch"])
        assert json.loads(json.dumps(config)) == config
        assert config == arch_config(config["arch"])
    ops = [op for arch in archs for node in parse_arch(arch) for op, _ in node]
    for op in ("none", "skip_connect", "nor_conv_1x1", "nor_conv_3x3", "avg_pool_3x3"):
        assert ops.count(op) / len(ops) == pytest.approx(0.2, abs=0.02)
