"""Tests of the FBNet family: arch strings, HW-NAS-Bench's skeleton, dataset archs, export."""

import csv
import json
import random

import pytest
import torch

from nnlat.datasets.published import published_table
from nnlat.zoo import get_family
from nnlat.zoo.fbnet import FAMILY, OPS, arch_config, arch_from_indices, parse_arch

HELP_CSV = published_table("fbnet")


def dataset_rows(count: int) -> list[dict[str, str]]:
    with HELP_CSV.open(newline="") as f:
        return [row for row, _ in zip(csv.DictReader(f), range(count), strict=False)]


def expected_params(arch: str, num_classes: int = 100) -> int:
    """Parameter count re-derived from HW-NAS-Bench's FBNet_Infer, block by block."""
    bn = 2  # BatchNorm weight and bias per channel
    total = 3 * 16 * 9 + bn * 16  # stem
    stages = [(1, 16, 1), (4, 24, 1), (4, 32, 2), (4, 64, 2), (4, 112, 1), (4, 184, 2), (1, 352, 1)]
    ops = iter(arch.split("-"))
    c_in = 16
    for count, c_out, stride in stages:
        for i in range(count):
            op = next(ops)
            if op == "skip":
                if c_in != c_out or (i == 0 and stride != 1):
                    total += c_in * c_out + bn * c_out
            else:
                kernel, expansion = int(op[1]), int(op[4])
                groups = 2 if op.endswith("_g2") else 1
                mid = c_in * expansion
                total += c_in * mid // groups + bn * mid  # expand
                total += mid * kernel * kernel + bn * mid  # depthwise
                total += mid * c_out // groups + bn * c_out  # project
            c_in = c_out
    return total + 352 * 1504 + bn * 1504 + 1504 * num_classes + num_classes


def param_count(config: dict) -> int:
    with torch.device("meta"):
        module = FAMILY.build(config)
    return sum(p.numel() for p in module.parameters())


def test_dataset_indices_and_names_agree() -> None:
    rows = dataset_rows(5000)
    for row in rows:
        assert arch_from_indices(row["op_idx_list"]) == row["arch_str"]
        assert "-".join(parse_arch(row["arch_str"])) == row["arch_str"]
        assert arch_config(row["op_idx_list"]) == arch_config(row["arch_str"])
    # The vocabulary order checked against the data: 7 = k5_e6, 8 = skip, 1 = k3_e1_g2.
    assert OPS[7] == "k5_e6" and OPS[8] == "skip" and OPS[1] == "k3_e1_g2"


@pytest.mark.parametrize(
    "arch",
    [
        "",
        "k3_e1",
        "-".join(["k3_e1"] * 21),
        "-".join(["k3_e1"] * 23),
        "-".join(["k3_e2"] + ["k3_e1"] * 21),
        "-".join(["k3_e1"] * 21) + "-",
        "-".join(["k3_e1"] * 21) + "-9",
    ],
)
def test_malformed_archs_are_rejected(arch: str) -> None:
    with pytest.raises(ValueError, match="FBNet"):
        arch_config(arch)


@pytest.mark.parametrize("indices", ["7-9", "7--1", "a-1", "", "-1"])
def test_malformed_indices_are_rejected(indices: str) -> None:
    with pytest.raises(ValueError, match="FBNet op indices"):
        arch_from_indices(indices)


def test_parameter_counts_follow_hw_nas_bench_skeleton() -> None:
    canonical = FAMILY.canonical["fbnet_all_k3_e1"]
    assert param_count(canonical) == expected_params(canonical["arch"])
    for row in dataset_rows(20):
        assert param_count(arch_config(row["arch_str"])) == expected_params(row["arch_str"])


@pytest.mark.slow
def test_dataset_archs_build_export_and_run() -> None:
    family = get_family("fbnet")
    for row in dataset_rows(20):
        config = arch_config(row["op_idx_list"])
        graph = family.model(config).to_onnx().graph
        assert [d.dim_value for d in graph.output[0].type.tensor_type.shape.dim] == [1, 100]
        with torch.no_grad():
            logits = family.build(config).eval()(torch.randn(family.input_shape(config)))
        assert logits.shape == (1, 100)


def test_grouped_ops_shuffle_channels_and_stages_downsample_eightfold() -> None:
    arch = "-".join(["k5_e1_g2"] * 22)
    graph = FAMILY.model(arch_config(arch)).to_onnx().graph
    assert sum(node.op_type == "Transpose" for node in graph.node) == 22
    features = FAMILY.build(arch_config(arch))[:-3]  # up to the head conv
    with torch.device("meta"), torch.no_grad():
        assert features.to("meta")(torch.empty(1, 3, 32, 32)).shape == (1, 1504, 4, 4)


def test_skip_is_identity_unless_the_shape_changes() -> None:
    module = FAMILY.build(arch_config("-".join(["skip"] * 22)))
    convs = [m for m in module.modules() if isinstance(m, torch.nn.Conv2d)]
    # Stem, head, and one 1x1 conv where each of stages 1, 2, 3, 4, 5, 6 changes shape.
    assert len(convs) == 2 + 6


def test_sampling_is_diverse_deterministic_and_json_able() -> None:
    configs = [FAMILY.sample(random.Random(seed)) for seed in range(3000)]
    assert configs[:20] == [FAMILY.sample(random.Random(seed)) for seed in range(20)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) >= 2000
    for config in configs[:50]:
        assert json.loads(json.dumps(config)) == config
        assert {"resolution", "num_classes"} <= config.keys()
        assert FAMILY.input_shape(config) == (1, 3, 32, 32)
