"""The NNLP predictor: learns, saves and loads whole, refuses what it cannot answer."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.datasets import build_dataset
from nnlat.errors import NnlatWarning
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.predictor import Predictor, PredictorError, TrainSettings, predict
from nnlat.predictor.metrics import mape
from nnlat.store import Store
from nnlat.testing import tiny_model
from nnlat.testing.records import TOY_PLATFORM, toy_predictor, toy_records


@pytest.fixture(scope="module")
def trained() -> Predictor:
    predictor, _ = Predictor.fit(
        toy_records(),
        settings=TrainSettings(epochs=80, patience=80, valid_fraction=0.0, device="cpu"),
        config={"hidden": 32, "layers": 2},
    )
    return predictor


def test_training_fits_a_flops_driven_latency(trained: Predictor) -> None:
    records = toy_records()
    measured = np.array([r.latency_ms for r in records])
    predicted = trained.predict_records(records)
    constant = np.full_like(measured, np.exp(np.mean(np.log(measured))))
    assert mape(measured, predicted) < 0.5 * mape(measured, constant)
    assert mape(measured, predicted) < 0.25


def test_save_and_load_give_the_same_predictions(trained: Predictor, tmp_path: Path) -> None:
    raws = [r.raw for r in toy_records()]
    tmp_path.chmod(0o755)
    trained.save(tmp_path / "p")
    loaded = Predictor.load(tmp_path / "p")
    assert loaded.platforms == trained.platforms
    assert (tmp_path / "p").stat().st_mode & 0o777 == 0o755  # not mkdtemp's private 0700
    np.testing.assert_allclose(
        loaded.predict_raw(raws, TOY_PLATFORM), trained.predict_raw(raws, TOY_PLATFORM), rtol=1e-6
    )


def test_load_refuses_another_feature_schema_version(trained: Predictor, tmp_path: Path) -> None:
    path = trained.save(tmp_path / "p")
    sidecar = json.loads((path / "predictor.json").read_text())
    sidecar["feature_schema_version"] = 999
    (path / "predictor.json").write_text(json.dumps(sidecar))
    with pytest.raises(PredictorError, match="feature_schema_version 999"):
        Predictor.load(path)
    with pytest.raises(PredictorError, match="not a saved predictor"):
        Predictor.load(tmp_path / "nothing-here")


def test_unknown_platform_names_the_known_ones(trained: Predictor) -> None:
    with pytest.raises(PredictorError, match=TOY_PLATFORM):
        predict(tiny_model(), "mars-ort9.9-fp32-t1", predictor=trained)


def sigmoid_model() -> onnx.ModelProto:
    weight = helper.make_tensor("w", TensorProto.FLOAT, [4, 3, 3, 3], [0.1] * 108)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Sigmoid", ["c"], ["y"]),
        ],
        "sig",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 16, 16])],
        [weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_unseen_operator_still_predicts_with_a_warning(trained: Predictor) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = predict(sigmoid_model(), TOY_PLATFORM, predictor=trained)
    assert result.unseen_ops == ("Sigmoid",) and np.isfinite(result.latency_ms)
    assert any(issubclass(w.category, NnlatWarning) and "Sigmoid" in str(w.message) for w in caught)


def test_batch_size_changes_the_prediction(trained: Predictor) -> None:
    one = predict(tiny_model(dynamic_batch=True), TOY_PLATFORM, predictor=trained)
    eight = predict(tiny_model(dynamic_batch=True), TOY_PLATFORM, 8, predictor=trained)
    assert eight.batch_size == 8 and eight.latency_ms != one.latency_ms


def test_toy_predictor_is_deterministic() -> None:
    a, records = toy_predictor()
    b, _ = toy_predictor()
    raws = [r.raw for r in records]
    np.testing.assert_allclose(a.predict_raw(raws, TOY_PLATFORM), b.predict_raw(raws, TOY_PLATFORM))


@pytest.mark.slow
def test_cli_trains_on_the_database_then_predicts(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    with Store.open(db) as store:
        build_dataset(
            store,
            ["squeezenet"],
            4,
            [TOY_PLATFORM],
            spec=MeasureSpec(min_runs=3, max_time_s=0.05),
            backends=backend_registry({"fake": FakeBackend}),
        )
    env = {"NNLAT_DB_URL": db, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = tmp_path / "predictor"
    runner = CliRunner()
    train = ["train", "--out", str(out), "--epochs", "2", "--name", "toy", "--json"]
    bad_note = runner.invoke(app, [*train, "--note", "no-equals-sign"], env=env)
    assert bad_note.exit_code == 2 and "KEY=VALUE" in bad_note.output
    trained = runner.invoke(app, [*train, "--note", "dataset=toy.jsonl.gz"], env=env)
    assert trained.exit_code == 0, trained.output
    summary = json.loads(trained.stdout)
    assert summary["records"] == 4 and summary["platforms"] == [TOY_PLATFORM]
    info = Predictor.load(out).info
    assert (info["name"], info["dataset"]) == ("toy", "toy.jsonl.gz")
    # Families and platforms are comma-separated, as in every other command.
    filtered = runner.invoke(app, [*train, "-f", "squeezenet,vgg", "-p", TOY_PLATFORM], env=env)
    assert filtered.exit_code == 0 and json.loads(filtered.stdout)["records"] == 4
    onnx.save(tiny_model(), tmp_path / "m.onnx")
    args = ["predict", str(tmp_path / "m.onnx"), "--predictor", str(out), "--json"]
    payload = json.loads(runner.invoke(app, args, env=env).stdout)["predictions"][0]
    assert {"latency_ms", "platform", "graph_hash", "unseen_ops"} <= set(payload)
    assert payload["platform"] == TOY_PLATFORM and payload["latency_ms"] > 0
    bad = runner.invoke(app, [*args[:-1], "-p", "mars-ort9.9-fp32-t1"], env=env)
    assert bad.exit_code == 2 and TOY_PLATFORM in bad.output


def fresh_nnlp(**overrides: Any) -> tuple[Any, Any]:
    """An untrained NNLP (one head) on the toy records' features, and one toy graph."""
    from nnlat.features.schema import FeatureSchema
    from nnlat.predictor.networks.nnlp import Nnlp, NnlpConfig
    from nnlat.predictor.predictor import to_data

    records = toy_records()
    schema = FeatureSchema.fit([r.raw for r in records])
    net = Nnlp(NnlpConfig(schema.node_dim, schema.global_dim, 1, **overrides)).eval()
    return net, to_data(schema.encode(records[0].raw), 0)


@pytest.mark.parametrize(
    ("overrides", "sees_nodes", "sees_static"),
    [
        ({}, True, True),
        ({"node_features": False}, False, True),
        ({"gnn": False}, True, True),
        ({"static_features": False}, True, False),
        ({"readout": "additive"}, True, True),
        ({"readout": "additive", "static_features": False}, True, False),
        ({"readout": "log-sum"}, True, True),
        ({"readout": "mean"}, True, True),
        ({"readout": "mean-log-sum"}, True, True),
    ],
)
def test_ablations_remove_what_they_say(
    overrides: dict[str, object], sees_nodes: bool, sees_static: bool
) -> None:
    import torch
    from torch_geometric.data import Batch

    net, data = fresh_nnlp(**overrides)
    base = net(Batch.from_data_list([data]))
    nodes = data.clone()
    nodes.x = nodes.x + 1.0
    static = data.clone()
    static.global_x = static.global_x + 1.0
    assert bool(net(Batch.from_data_list([nodes])) != base) == sees_nodes
    assert bool(net(Batch.from_data_list([static])) != base) == sees_static
    assert isinstance(base, torch.Tensor)


@pytest.mark.parametrize(
    ("readout", "shift"),
    [
        ("additive", math.log(2)),
        ("mean", 0.0),
        ("sum", None),
        ("log-sum", None),
        ("mean-log-sum", None),
    ],
)
def test_a_graph_twice_over_is_twice_as_slow_additively_and_the_same_by_its_mean(
    readout: str, shift: float | None
) -> None:
    # The additive readout sums per-node latencies; the mean readout sees only the
    # graph's composition (without static features, nothing tells it the size); the
    # summed readouts are neither.
    import torch
    from torch_geometric.data import Batch

    net, data = fresh_nnlp(readout=readout, static_features=False)
    # Two disjoint copies of the graph: every node keeps its neighbourhood.
    twice = data.clone()
    twice.x = data.x.repeat(2, 1)
    twice.edge_index = torch.cat([data.edge_index, data.edge_index + data.num_nodes], dim=1)
    once, doubled = (float(net(Batch.from_data_list([g]))) for g in (data, twice))
    for expected in (math.log(2), 0.0):
        assert math.isclose(doubled - once, expected, abs_tol=1e-4) == (shift == expected)


@pytest.mark.slow
def test_inference_aggregates_through_a_sparse_matrix_what_training_does_through_edges() -> None:
    # Without autograd the SAGE layers read a CSR adjacency (incoming_csr), with it the
    # edge list: the embeddings must not depend on which.
    import torch
    from torch_geometric.data import Batch

    from nnlat.features import raw_features
    from nnlat.features.schema import FeatureSchema
    from nnlat.predictor.networks.nnlp import Nnlp, NnlpConfig
    from nnlat.predictor.predictor import to_data
    from nnlat.zoo.generate import generate_variants

    raws = [raw_features(v.graph) for v in generate_variants("nasbench201", 2, seed=3)]
    schema = FeatureSchema.fit(raws)
    net = Nnlp(NnlpConfig(schema.node_dim, schema.global_dim, 1)).eval()
    batch = Batch.from_data_list([to_data(schema.encode(raw), 0) for raw in raws])
    with torch.no_grad():
        sparse = net.node_embeddings(batch)
    through_edges = net.node_embeddings(batch).detach()
    assert through_edges.requires_grad is False and sparse.shape == (batch.num_nodes, 128)
    torch.testing.assert_close(sparse, through_edges, rtol=1e-6, atol=1e-6)


def test_a_batch_size_unseen_in_training_gets_a_finite_prediction() -> None:
    # Every toy record has batch 1, so the batch column is constant in training.
    from nnlat.features import raw_features
    from nnlat.graph import load

    predictor, _ = toy_predictor()
    one = load(tiny_model(dynamic_batch=True), batch_size=1)
    eight = load(tiny_model(dynamic_batch=True), batch_size=8)
    ms_one, ms_eight = predictor.predict_raw([raw_features(one), raw_features(eight)], TOY_PLATFORM)
    assert 0 < ms_one < 1e3 and 0 < ms_eight < 1e3


@pytest.mark.parametrize(
    ("overrides", "complaint"),
    [
        ({"node_features": False, "static_features": False}, "node features or static"),
        ({"readout": "additive", "node_features": False}, "additive readout needs node"),
        ({"readout": "log-sum", "gnn": False}, "log-sum readout needs the GNN"),
        ({"readout": "mean-log-sum", "gnn": False}, "mean-log-sum readout needs the GNN"),
    ],
)
def test_a_network_that_cannot_work_is_refused_with_the_reason(
    overrides: dict[str, object], complaint: str
) -> None:
    from nnlat.predictor.networks.nnlp import Nnlp, NnlpConfig

    with pytest.raises(ValueError, match=complaint):
        Nnlp(NnlpConfig(node_dim=4, global_dim=2, platforms=1, **overrides))


def test_a_predictor_saved_before_the_readout_was_recorded_loads_with_the_sum(
    tmp_path: Path,
) -> None:
    # NNLP summed node embeddings before NnlpConfig.readout existed; the default is now
    # the mean, so a checkpoint without the field must not silently change readout.
    records = toy_records()
    predictor, _ = Predictor.fit(
        records,
        settings=TrainSettings(epochs=2, valid_fraction=0.25, device="cpu"),
        config={"hidden": 16, "layers": 2, "readout": "sum"},
    )
    saved = predictor.save(tmp_path / "old")
    sidecar = json.loads((saved / "predictor.json").read_text())
    del sidecar["config"]["readout"]
    (saved / "predictor.json").write_text(json.dumps(sidecar))
    loaded = Predictor.load(saved)
    assert loaded.net.config.readout == "sum"
    raws = [r.raw for r in records[:4]]
    np.testing.assert_allclose(
        loaded.predict_raw(raws, TOY_PLATFORM), predictor.predict_raw(raws, TOY_PLATFORM)
    )


def test_a_model_with_no_operators_is_refused_with_one_line() -> None:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    one = numpy_helper.from_array(np.ones((1, 4), np.float32), "one")
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    constant = helper.make_model(  # folds to a constant output: no operator is left
        helper.make_graph([helper.make_node("Add", ["one", "one"], ["y"])], "c", [], [y], [one]),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    from nnlat.graph import load

    assert load(constant.SerializeToString()).nodes == ()
    with pytest.raises(PredictorError, match="no operators left"):
        predict(constant.SerializeToString())
