"""Cell graphs: the NAS-Bench-201 cell DAG and the FBNet chain, read off a published table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nnlat.datasets.cell_graphs import (
    cell_archs,
    cell_key,
    cell_records,
    fbnet_chain,
    nasbench201_cell,
    nasbench201_live_cell,
)
from nnlat.datasets.published import PublishedDataError, published_table, read_latency_table
from nnlat.features.raw import GRAPH_COLUMNS, NODE_COLUMNS
from nnlat.features.schema import FeatureSchema

CELL = "|nor_conv_3x3~0|+|skip_connect~0|none~1|+|avg_pool_3x3~0|nor_conv_1x1~1|none~2|"


def edges(raw) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """The edges as (producer, consumer) pairs of node labels (op + index)."""
    label = [f"{op}#{i}" for i, op in enumerate(raw.op_types)]
    return {(label[a], label[b]) for a, b in raw.edge_index.T.tolist()}


def test_a_nasbench201_cell_has_one_node_per_operation_wired_as_the_cell() -> None:
    raw = nasbench201_cell(CELL, batch_size=4)
    assert raw.op_types == (
        "input",
        "nb201:nor_conv_3x3",  # 0 → 1
        "nb201:skip_connect",  # 0 → 2
        "nb201:none",  # 1 → 2
        "nb201:avg_pool_3x3",  # 0 → 3
        "nb201:nor_conv_1x1",  # 1 → 3
        "nb201:none",  # 2 → 3
        "output",
    )
    assert edges(raw) == {
        ("input#0", "nb201:nor_conv_3x3#1"),
        ("input#0", "nb201:skip_connect#2"),
        ("input#0", "nb201:avg_pool_3x3#4"),
        ("nb201:nor_conv_3x3#1", "nb201:none#3"),  # node 1 is the conv's output
        ("nb201:nor_conv_3x3#1", "nb201:nor_conv_1x1#5"),
        ("nb201:skip_connect#2", "nb201:none#6"),  # node 2 = skip + none
        ("nb201:none#3", "nb201:none#6"),
        ("nb201:avg_pool_3x3#4", "output#7"),  # node 3 = the cell's output
        ("nb201:nor_conv_1x1#5", "output#7"),
        ("nb201:none#6", "output#7"),
    }
    assert raw.graph_values[GRAPH_COLUMNS.index("batch_size")] == 4
    assert not raw.node_values.any()


def test_an_fbnet_chain_carries_each_layers_shape_on_the_cifar_skeleton() -> None:
    arch = "-".join(["k5_e6", "skip", "k3_e1_g2"] + ["k3_e3"] * 19)
    raw = fbnet_chain(arch)
    assert raw.op_types[:4] == ("input", "fbnet:k5_e6", "fbnet:skip", "fbnet:k3_e1_g2")
    assert raw.edge_index.tolist() == [list(range(23)), list(range(1, 24))]
    column = {name: raw.node_values[:, i] for i, name in enumerate(NODE_COLUMNS)}
    assert column["kernel_h"][1:4].tolist() == [5, 0, 3]
    assert column["group"][3] == 2
    widths = [16] + [24] * 4 + [32] * 4 + [64] * 4 + [112] * 4 + [184] * 4 + [352]
    assert column["out_d1"][1:-1].tolist() == widths
    # stride 2 at the first layer of stages 3, 4 and 6: 32 → 16 → 8 → 4
    assert column["out_d2"][1:-1].tolist() == [32] * 5 + [16] * 4 + [8] * 8 + [4] * 5
    assert column["in_d1"][2] == 16 and column["stride_h"][6] == 2


def test_a_live_cell_keeps_only_the_operations_whose_work_reaches_the_output() -> None:
    # The skip 0 → 2 feeds node 2, which reaches node 3 through `none` only: dead.
    raw = nasbench201_live_cell(CELL, batch_size=4)
    assert edges(raw) == {
        ("input#0", "nb201:nor_conv_3x3#1"),
        ("input#0", "nb201:avg_pool_3x3#2"),
        ("nb201:nor_conv_3x3#1", "nb201:nor_conv_1x1#3"),
        ("nb201:avg_pool_3x3#2", "output#4"),
        ("nb201:nor_conv_1x1#3", "output#4"),
    }
    assert raw.graph_values[GRAPH_COLUMNS.index("batch_size")] == 4
    # Whatever the dead edge does, the cell computes the same: one graph.
    dead_conv = nasbench201_live_cell(CELL.replace("skip_connect~0", "nor_conv_3x3~0"))
    assert dead_conv.op_types == raw.op_types and edges(dead_conv) == edges(raw)


def test_chained_skips_become_one_edge_and_a_cell_of_zeros_has_none() -> None:
    skips = nasbench201_live_cell(
        "|skip_connect~0|+|none~0|skip_connect~1|+|none~0|none~1|skip_connect~2|"
    )
    zeros = nasbench201_live_cell("|none~0|+|none~0|none~1|+|none~0|none~1|none~2|")
    assert skips.op_types == zeros.op_types == ("input", "output")
    assert edges(skips) == {("input#0", "output#1")} and edges(zeros) == set()


OPS = ["none", "skip_connect", "nor_conv_1x1", "nor_conv_3x3", "avg_pool_3x3"]


@given(st.lists(st.sampled_from(OPS), min_size=6, max_size=6))
def test_every_kept_operation_lies_on_a_path_from_input_to_output(ops: list[str]) -> None:
    arch = "|{}~0|+|{}~0|{}~1|+|{}~0|{}~1|{}~2|".format(*ops)
    raw = nasbench201_live_cell(arch)
    assert raw.op_types[0] == "input" and raw.op_types[-1] == "output"
    assert not {"nb201:none", "nb201:skip_connect"} & set(raw.op_types)
    pairs = raw.edge_index.T.tolist()
    for node in range(1, len(raw.op_types) - 1):
        assert any(b == node for _, b in pairs) and any(a == node for a, _ in pairs)
    assert all(a < b for a, b in pairs)  # still a DAG in topological order


@pytest.mark.parametrize(
    ("build", "arch"),
    [(nasbench201_cell, "|conv~0|+|none~0|none~1|+|none~0|none~1|none~2|"),
     (nasbench201_cell, "|none~0|"), (fbnet_chain, "k3_e1-skip"), (fbnet_chain, "k9_e1")],
)  # fmt: skip
def test_a_malformed_architecture_is_a_clear_error(build, arch) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PublishedDataError):
        build(arch)


def test_records_have_one_graph_per_architecture_and_a_head_per_column(tmp_path: Path) -> None:
    other = CELL.replace("avg_pool_3x3", "skip_connect")
    path = tmp_path / "help_latency_ms.csv"
    path.write_text(f"nb201_idx,arch_str,gpu_1,gpu_32\n0,{CELL},2.0,1.5\n1,{other},3.0,\n")
    table = read_latency_table(path, "nas-bench-201")
    gpu1, gpu32 = cell_records(table, "gpu_1"), cell_records(table, "gpu_32")
    assert [(r.platform, r.batch_size, r.latency_ms) for r in gpu1] == [
        ("gpu_1", 1, 2.0), ("gpu_1", 1, 3.0),
    ]  # fmt: skip
    assert [(r.platform, r.batch_size) for r in gpu32] == [("gpu_32", 32)]  # the gap is skipped
    assert gpu1[0].graph_hash == gpu32[0].graph_hash != gpu1[1].graph_hash
    assert cell_archs(table) == {cell_key("nas-bench-201", CELL): CELL, gpu1[1].graph_hash: other}
    assert gpu32[0].raw.graph_values[0] == 32
    schema = FeatureSchema.fit(r.raw for r in gpu1)
    assert "nb201:avg_pool_3x3" in schema.op_vocab and "output" in schema.op_vocab
    with pytest.raises(PublishedDataError, match="no device 'cpu'"):
        cell_records(table, "cpu")


@pytest.mark.slow
def test_every_published_architecture_has_a_distinct_cell_graph() -> None:
    table = read_latency_table(published_table("nas-bench-201"), "nas-bench-201")
    records = cell_records(table, "pixel3")
    assert len(records) == 15625 == len({r.graph_hash for r in records})
    signatures = {(r.raw.op_types, r.raw.edge_index.tobytes()) for r in records}
    assert len(signatures) == 15625  # unlike ONNX export, nothing collapses
    cells = map(nasbench201_live_cell, table.archs)
    live = {(raw.op_types, raw.edge_index.tobytes()) for raw in cells}
    assert len(live) == 6605  # NAS-Bench-201 has 6,466 distinct cells up to isomorphism
    fbnet = read_latency_table(published_table("fbnet"), "fbnet")
    chains = cell_records(fbnet, "1080ti_64")
    assert len(chains) == 5000 and {len(r.raw.op_types) for r in chains} == {24}
    assert np.all([r.batch_size == 64 for r in chains])
