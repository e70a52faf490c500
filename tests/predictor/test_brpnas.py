"""The BRP-NAS GCN: global node wiring, shapes, training, save/load, transfer heads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch, Data

from nnlat.datasets.cell_graphs import nasbench201_cell
from nnlat.features.records import LatencyRecord
from nnlat.predictor import Predictor, TrainSettings
from nnlat.predictor.metrics import mape
from nnlat.predictor.networks.brpnas import BrpnasConfig, BrpnasGcn, add_global_nodes
from nnlat.predictor.predictor import NETWORKS, to_data
from nnlat.testing.cells import cell_arch
from nnlat.testing.records import TOY_PLATFORM, toy_records

NODE_DIM, GLOBAL_DIM = 5, 3


def graph(nodes: int, edges: list[tuple[int, int]], platform: int = 0, seed: int = 0) -> Data:
    generator = torch.Generator().manual_seed(seed)
    edge_index = torch.tensor(edges, dtype=torch.long).reshape(-1, 2).T.contiguous()
    return Data(
        x=torch.randn(nodes, NODE_DIM, generator=generator),
        edge_index=edge_index,
        global_x=torch.randn(1, GLOBAL_DIM, generator=generator),
        platform=torch.tensor([platform]),
    )


def net(layers: int = 2, platforms: int = 2, seed: int = 0) -> BrpnasGcn:
    torch.manual_seed(seed)
    config = BrpnasConfig(NODE_DIM, GLOBAL_DIM, platforms, hidden=16, layers=layers)
    model = BrpnasGcn(config).eval()
    # A non-zero global embedding, so the test does not rely on its zero initialisation.
    with torch.no_grad():
        model.global_embedding.normal_()
    return model


@pytest.fixture(scope="module")
def trained() -> Predictor:
    predictor, _ = Predictor.fit(
        toy_records(),
        network="brpnas",
        settings=TrainSettings(
            epochs=80, patience=80, valid_fraction=0.0, device="cpu", loss="mape"
        ),
        config={"hidden": 32, "layers": 2},
    )
    return predictor


def test_registered_with_paper_defaults() -> None:
    spec = NETWORKS.get("brpnas")
    config = spec.config_type(node_dim=4, global_dim=2, platforms=1)
    assert (config.layers, config.hidden, config.dropout) == (4, 600, 0.002)
    assert isinstance(spec.build(config), BrpnasGcn)


def test_global_node_joins_every_node_of_its_graph_both_ways() -> None:
    batch = Batch.from_data_list([graph(1, []), graph(3, [(0, 1)]), graph(2, [(1, 0)])])
    n = batch.num_nodes
    x, edges, hubs = add_global_nodes(
        batch.x, batch.edge_index, batch.batch, torch.zeros(3, NODE_DIM)
    )
    assert x.shape == (n + 3, NODE_DIM) and hubs.tolist() == [n, n + 1, n + 2]
    pairs = set(map(tuple, edges.T.tolist()))
    assert set(map(tuple, batch.edge_index.T.tolist())) <= pairs
    for node, g in enumerate(batch.batch.tolist()):
        assert (node, n + g) in pairs and (n + g, node) in pairs
    assert edges.shape[1] == batch.edge_index.shape[1] + 2 * n  # nothing else


def test_mixed_sizes_and_platforms_give_one_finite_value_per_graph() -> None:
    graphs = [
        graph(1, [], platform=1, seed=1),
        graph(4, [(0, 1), (1, 2), (2, 3)], seed=2),
        graph(9, [(i, i + 1) for i in range(8)], platform=1, seed=3),
    ]
    out = net()(Batch.from_data_list(graphs))
    assert out.shape == (3,) and torch.isfinite(out).all()
    # Batching changes nothing: each graph alone gives the same value.
    alone = torch.cat([net()(Batch.from_data_list([g])) for g in graphs])
    torch.testing.assert_close(out, alone)


@pytest.mark.parametrize("node", [0, 4, 5])
def test_one_layer_reaches_every_node_even_isolated_ones(node: int) -> None:
    # Path 0-1-2-3 plus isolated nodes 4 and 5. With one GCN layer only the global node
    # (one hop from everything) can see node 0, the far end of the path, or node 4/5.
    g = graph(6, [(0, 1), (1, 2), (2, 3)], seed=4)
    other = graph(3, [(0, 1)], seed=5)
    model = net(layers=1)
    before = model(Batch.from_data_list([g, other]))
    changed = g.clone()
    changed.x = changed.x.clone()
    changed.x[node] += 3.0
    after = model(Batch.from_data_list([changed, other]))
    assert not torch.isclose(after[0], before[0])
    assert torch.equal(after[1], before[1])  # the other graph's global node is not joined


@pytest.mark.parametrize("edges", ["undirected", "directed"])
def test_only_directed_edges_tell_a_chain_from_its_reverse(edges: str) -> None:
    chain = graph(4, [(0, 1), (1, 2), (2, 3)], seed=7)
    reverse = chain.clone()
    reverse.edge_index = chain.edge_index.flip(0)
    torch.manual_seed(0)
    config = BrpnasConfig(NODE_DIM, GLOBAL_DIM, 1, hidden=16, layers=2, edges=edges)
    model = BrpnasGcn(config).eval()
    out = model(Batch.from_data_list([chain, reverse]))
    assert torch.isclose(out[0], out[1]).item() == (edges == "undirected")


def test_embedding_is_the_global_node_then_the_static_features() -> None:
    g = graph(3, [(0, 1), (1, 2)], seed=6)
    model = net(layers=1)
    embedding = model.embed(Batch.from_data_list([g, g]))
    assert embedding.shape == (2, 16 + GLOBAL_DIM)
    # The global node's row went through LayerNorm (no affine change yet) and ReLU.
    assert (embedding[:, :16] >= 0).all() and embedding[:, :16].abs().sum() > 0
    torch.testing.assert_close(embedding[:, 16:], torch.cat([g.global_x, g.global_x]))


def test_training_beats_a_constant(trained: Predictor) -> None:
    records = toy_records()
    measured = np.array([r.latency_ms for r in records])
    predicted = trained.predict_records(records)
    constant = np.full_like(measured, np.exp(np.mean(np.log(measured))))
    assert trained.network == "brpnas" and isinstance(trained.net, BrpnasGcn)
    assert mape(measured, predicted) < 0.5 * mape(measured, constant)


def test_save_and_load_give_the_same_predictions(trained: Predictor, tmp_path: Path) -> None:
    raws = [r.raw for r in toy_records()]
    trained.save(tmp_path / "p")
    loaded = Predictor.load(tmp_path / "p")
    assert loaded.network == "brpnas" and loaded.net.config == trained.net.config
    np.testing.assert_array_equal(
        loaded.predict_raw(raws, TOY_PLATFORM), trained.predict_raw(raws, TOY_PLATFORM)
    )


def test_add_head_gives_a_working_new_head(trained: Predictor) -> None:
    model = BrpnasGcn(trained.net.config)
    model.load_state_dict(trained.net.state_dict())
    model.eval()
    records = toy_records()[:4]
    old = [to_data(trained.schema.encode(r.raw), 0) for r in records]
    before = model(Batch.from_data_list(old))
    head = model.add_head()
    assert head == 1 and model.config.platforms == 2 and len(model.heads) == 2
    new = [to_data(trained.schema.encode(r.raw), head) for r in records]
    out = model(Batch.from_data_list(new + old))
    assert out.shape == (8,) and torch.isfinite(out).all()
    torch.testing.assert_close(out[4:], before)  # the old head is untouched
    # The new head trains: a few steps move its outputs towards a target.
    target = torch.full((4,), 2.0)
    optimiser = torch.optim.Adam(model.heads[head].parameters(), lr=0.05)
    batch = Batch.from_data_list(new)
    with torch.no_grad():
        start = float(torch.mean((model(batch) - target) ** 2))
    for _ in range(30):
        optimiser.zero_grad()
        torch.mean((model(batch) - target) ** 2).backward()
        optimiser.step()
    with torch.no_grad():
        assert float(torch.mean((model(batch) - target) ** 2)) < 0.5 * start


@pytest.mark.slow
def test_learns_a_latency_that_counts_operators() -> None:
    """A cell's latency as the sum of its operators' costs: the GCN must count them.

    A degree-normalised convolution (PyG's GCNConv, this network's first version) stays
    near a constant prediction here; the summing one of the paper's equation (2) learns it.
    """
    cost = {"nor_conv_3x3": 3.0, "nor_conv_1x1": 1.0, "avg_pool_3x3": 0.5, "skip_connect": 0.1}
    ops = [*cost, "none"]
    rng = np.random.default_rng(0)
    records = []
    for index in range(240):
        chosen = [ops[i] for i in rng.integers(0, len(ops), size=6)]
        latency = 1.0 + sum(cost.get(op, 0.0) for op in chosen)
        raw = nasbench201_cell(cell_arch(chosen))
        records.append(LatencyRecord(f"cell{index}", "cell", TOY_PLATFORM, 1, latency, raw))
    train, test = records[:200], records[200:]
    predictor, _ = Predictor.fit(
        train,
        network="brpnas",
        settings=TrainSettings(epochs=90, patience=90, valid_fraction=0.0, device="cpu"),
        config={"hidden": 32, "layers": 2, "static_features": False},
    )
    measured = np.array([r.latency_ms for r in test])
    constant = mape(np.full(len(test), np.median([r.latency_ms for r in train])), measured)
    assert mape(predictor.predict_records(test), measured) < constant / 6
