"""The kernel-level GraphSAGE ("kernel-sage"): kernel subgraphs, per-kernel sums, training."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch, Data

from nnlat.features.schema import FeatureSchema
from nnlat.predictor import Predictor, TrainSettings
from nnlat.predictor.metrics import mape
from nnlat.predictor.networks.kernel_sage import KernelSage, KernelSageConfig
from nnlat.predictor.predictor import NETWORKS, to_data
from nnlat.predictor.transfer import fine_tune
from nnlat.studies.methods import METHODS, MethodContext
from nnlat.testing.records import TOY_PLATFORM, toy_records

NODE_DIM, GLOBAL_DIM, HIDDEN = 5, 3, 16
SETTINGS = TrainSettings(epochs=80, patience=80, valid_fraction=0.0, device="cpu")
CONFIG = {"hidden": 32, "layers": 2}


def graph(
    kernels: list[int], edges: list[tuple[int, int]], platform: int = 0, seed: int = 0
) -> Data:
    generator = torch.Generator().manual_seed(seed)
    return Data(
        x=torch.randn(len(kernels), NODE_DIM, generator=generator),
        edge_index=torch.tensor(edges, dtype=torch.long).reshape(-1, 2).T.contiguous(),
        kernel=torch.tensor(kernels),
        global_x=torch.randn(1, GLOBAL_DIM, generator=generator),
        platform=torch.tensor([platform]),
    )


def net(platforms: int = 1, seed: int = 0) -> KernelSage:
    torch.manual_seed(seed)
    model = KernelSage(KernelSageConfig(NODE_DIM, GLOBAL_DIM, platforms, hidden=HIDDEN)).eval()
    # A correction away from its a = b = 1 start, so the test does not rely on it.
    with torch.no_grad():
        for head in model.heads:
            head.log_scale.normal_()
            head.log_offset.normal_()
    return model


# Graph A: kernels {0, 1} and {2, 3}; edge 1→2 crosses kernels. Graph B: kernels {0}
# and {1, 2}, whose ids collide with A's: only (graph, id) tells them apart.
A = graph([0, 0, 1, 1], [(0, 1), (1, 2), (2, 3)], seed=1)
B = graph([0, 1, 1], [(0, 1), (1, 2)], seed=2)


def without_edge(g: Data, edge: tuple[int, int]) -> Data:
    kept = [e for e in map(tuple, g.edge_index.T.tolist()) if e != edge]
    assert len(kept) == g.edge_index.shape[1] - 1
    return graph(g.kernel.tolist(), kept, int(g.platform), seed=0).update({"x": g.x})


def test_registered_with_the_requested_defaults() -> None:
    spec = NETWORKS.get("kernel-sage")
    config = spec.config_type(node_dim=4, global_dim=2, platforms=1)
    assert (config.hidden, config.layers, config.dropout) == (128, 3, 0.05)
    assert isinstance(spec.build(config), KernelSage)


def test_to_data_carries_kernel_ids_unshifted_by_batching() -> None:
    records = toy_records()[:2]
    schema = FeatureSchema.fit(r.raw for r in records)
    data = [to_data(schema.encode(r.raw), 0) for r in records]
    assert data[0].kernel.tolist() == records[0].raw.kernel_ids.tolist()
    batch = Batch.from_data_list(data)
    assert batch.kernel.tolist() == [k for r in records for k in r.raw.kernel_ids.tolist()]


def test_kernels_are_pooled_separately_over_their_own_subgraphs() -> None:
    model = net()
    embeddings, graph_of = model.kernel_embeddings(Batch.from_data_list([A, B]))
    assert graph_of.tolist() == [0, 0, 1, 1]
    # Each kernel alone, as its own graph with only its nodes and edges, summed.
    for row, (g, nodes) in enumerate([(A, [0, 1]), (A, [2, 3]), (B, [0]), (B, [1, 2])]):
        x = g.x[nodes]
        edges = [
            (nodes.index(s), nodes.index(d))
            for s, d in g.edge_index.T.tolist()
            if s in nodes and d in nodes
        ]
        edge_index = torch.tensor(edges, dtype=torch.long).reshape(-1, 2).T
        for conv in model.convs:
            x = torch.relu(conv(x, edge_index))
        torch.testing.assert_close(embeddings[row], x.sum(dim=0))


def test_output_is_the_corrected_sum_of_kernel_latencies() -> None:
    model = net()
    embeddings, _ = model.kernel_embeddings(Batch.from_data_list([A, B]))
    head = model.heads[0]
    kernel_ms = torch.exp(head(embeddings))
    a, b = torch.exp(head.log_scale), torch.exp(head.log_offset)
    expected = torch.log(a * torch.stack([kernel_ms[:2].sum(), kernel_ms[2:].sum()]) + b)
    torch.testing.assert_close(model(Batch.from_data_list([A, B])), expected)


def test_a_graph_depends_on_its_own_nodes_only() -> None:
    model = net()
    before = model(Batch.from_data_list([A, B]))
    changed = B.clone()
    changed.x = B.x + 1.0
    after = model(Batch.from_data_list([A, changed]))
    assert torch.equal(after[0], before[0]) and not torch.isclose(after[1], before[1])
    torch.testing.assert_close(
        before, torch.cat([model(Batch.from_data_list([g])) for g in (A, B)])
    )


def test_only_intra_kernel_edges_matter() -> None:
    model = net()
    before = model(Batch.from_data_list([A, B]))
    cut_across = model(Batch.from_data_list([without_edge(A, (1, 2)), B]))
    cut_inside = model(Batch.from_data_list([without_edge(A, (0, 1)), B]))
    torch.testing.assert_close(cut_across, before)
    assert not torch.isclose(cut_inside[0], before[0]) and torch.equal(cut_inside[1], before[1])


def test_each_graph_uses_its_platforms_head_and_add_head_appends_one() -> None:
    model = net(platforms=2)
    mixed = model(Batch.from_data_list([A, B.clone().update({"platform": torch.tensor([1])})]))
    on_zero = model(Batch.from_data_list([A, B]))
    torch.testing.assert_close(mixed[0], on_zero[0])
    assert not torch.isclose(mixed[1], on_zero[1])

    assert model.add_head() == 2 and model.config.platforms == 3 and len(model.heads) == 3
    assert {"heads.2.log_scale", "heads.2.log_offset"} <= set(model.state_dict())
    on_new = Batch.from_data_list([A.clone().update({"platform": torch.tensor([2])}), B])
    out = model(on_new)
    assert torch.isfinite(out).all() and torch.equal(out[1], on_zero[1])  # old heads untouched


@pytest.fixture(scope="module")
def trained() -> Predictor:
    predictor, _ = Predictor.fit(
        toy_records(), network="kernel-sage", settings=SETTINGS, config=CONFIG
    )
    return predictor


def test_training_beats_its_initialisation_and_a_constant(trained: Predictor) -> None:
    records = toy_records()
    measured = np.array([r.latency_ms for r in records])
    torch.manual_seed(SETTINGS.seed)  # the initial weights Predictor.fit started from
    initial = Predictor(
        trained.schema, KernelSage(trained.net.config), "kernel-sage", trained.platforms
    ).predict_records(records)
    predicted = trained.predict_records(records)
    constant = np.full_like(measured, np.exp(np.mean(np.log(measured))))
    assert trained.network == "kernel-sage" and isinstance(trained.net, KernelSage)
    assert mape(measured, predicted) < 0.5 * mape(measured, initial)
    assert mape(measured, predicted) < 0.5 * mape(measured, constant)


def test_save_and_load_give_the_same_predictions(trained: Predictor, tmp_path: Path) -> None:
    raws = [r.raw for r in toy_records()]
    trained.save(tmp_path / "p")
    loaded = Predictor.load(tmp_path / "p")
    assert loaded.network == "kernel-sage" and loaded.net.config == trained.net.config
    np.testing.assert_array_equal(
        loaded.predict_raw(raws, TOY_PLATFORM), trained.predict_raw(raws, TOY_PLATFORM)
    )


def test_predict_all_runs_every_head_without_a_shared_embedding(trained: Predictor) -> None:
    predictor = copy.deepcopy(trained)
    predictor.net.add_head()
    predictor.add_head_name("other-platform")
    raws = [r.raw for r in toy_records()]
    every = predictor.predict_all(raws, batch_size=5)
    assert list(every) == [TOY_PLATFORM, "other-platform"]
    for platform, values in every.items():
        np.testing.assert_allclose(values, predictor.predict_raw(raws, platform), rtol=1e-6)
    assert not np.allclose(every[TOY_PLATFORM], every["other-platform"])


def test_fine_tuning_to_a_new_platform_copies_the_correction(trained: Predictor) -> None:
    pretrained = copy.deepcopy(trained)
    with torch.no_grad():  # a correction no fresh head would have
        pretrained.net.heads[0].log_scale.fill_(0.5)
        pretrained.net.heads[0].log_offset.fill_(-1.5)
    new = [
        dataclasses.replace(r, platform="slow-platform", latency_ms=3 * r.latency_ms)
        for r in toy_records()
    ]
    frozen = SETTINGS.model_copy(update={"epochs": 1, "lr": 1e-12})  # keep the copied head
    tuned, _ = fine_tune(pretrained, new, settings=frozen)
    assert tuned.platforms == [TOY_PLATFORM, "slow-platform"] and len(tuned.net.heads) == 2
    head = tuned.net.heads[1]
    assert (head.log_scale.item(), head.log_offset.item()) == pytest.approx((0.5, -1.5))
    assert np.isfinite(tuned.predict_raw([r.raw for r in new], "slow-platform")).all()


def test_the_kernel_sage_method_takes_the_studys_hidden_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[dict[str, object]] = []
    fit = Predictor.fit.__func__  # type: ignore[attr-defined]

    def spy(cls: type[Predictor], *args: object, **kwargs: object) -> object:
        seen.append(kwargs["config"])  # type: ignore[arg-type]
        return fit(cls, *args, **kwargs)

    monkeypatch.setattr(Predictor, "fit", classmethod(spy))
    records = toy_records()
    settings = TrainSettings(epochs=3, valid_fraction=0.25, device="cpu")
    context = MethodContext(settings, config={"hidden": 8})
    predicted = METHODS.get("kernel-sage").build(context).fit(records[:8]).predict(records[8:])
    assert seen == [{"hidden": 8}]
    assert predicted.shape == (4,) and np.isfinite(predicted).all() and (predicted > 0).all()
