"""Vectorised inference batches against the per-graph ``to_data`` + ``DataLoader`` path.

Prediction encodes many graphs at once (``FeatureSchema.encode_many``, ``to_batch``);
training keeps one ``Data`` per graph. Both must feed every registered network the same
numbers, so each is checked against the other here, on toy graphs and real ones with
operators the schema never saw.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from torch_geometric.data import Batch

from nnlat.features.raw import RawFeatures, raw_features
from nnlat.features.schema import OTHER, FeatureSchema
from nnlat.graph import load
from nnlat.predictor.batching import predict_log_raw, to_batch
from nnlat.predictor.predictor import NETWORKS, Predictor, to_data
from nnlat.predictor.training import predict_log
from nnlat.testing.records import toy_records
from nnlat.zoo.realworld import REALWORLD_BUILDERS

LIGHT_MODELS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
PLATFORMS = ("slow", "fast", "odd")


@functools.cache
def real_raws() -> tuple[RawFeatures, ...]:
    """Real graphs: CNNs, sub-graphs (If, Loop) and a custom-domain operator."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dynamic dimensions set to defaults
        graphs = [
            load(LIGHT_MODELS / "light_shufflenet.onnx"),
            load(LIGHT_MODELS / "light_inception_v1.onnx"),
            *(load(REALWORLD_BUILDERS[n]()) for n in ("custom_domain_op", "if_subgraph")),
            load(REALWORLD_BUILDERS["loop_subgraph"]()),
        ]
    return tuple(raw_features(g) for g in graphs)


def raws() -> list[RawFeatures]:
    """Toy graphs and real ones interleaved: batches of unequal graphs."""
    toy = [r.raw for r in toy_records()]
    return [*toy[:5], *real_raws(), *toy[5:]]


def predictor(network: str) -> Predictor:
    """An untrained predictor (random weights) with three heads; schema fitted on toys."""
    schema = FeatureSchema.fit(r.raw for r in toy_records())
    spec = NETWORKS.get(network)
    config = spec.config_type(
        node_dim=schema.node_dim, global_dim=schema.global_dim, platforms=3, hidden=16
    )
    torch.manual_seed(0)
    net = spec.build(config)
    with torch.no_grad():  # heads that differ, so a wrong head shows
        for head in net.heads:
            for parameter in head.parameters():
                parameter.normal_(0.0, 0.3)
    return Predictor(schema, net, network, PLATFORMS)


def old_predict(p: Predictor, graphs: list[RawFeatures], heads: list[int]) -> np.ndarray:
    """The per-graph path: ``to_data`` graphs collated by PyG's ``DataLoader``."""
    data = [to_data(p.schema.encode(raw), head) for raw, head in zip(graphs, heads, strict=True)]
    return np.exp(predict_log(p.net, data, batch_size=4))


@pytest.mark.parametrize("network", ["nnlp", "brpnas", "kernel-sage"])
def test_batched_predictions_equal_the_per_graph_path(network: str) -> None:
    p, graphs = predictor(network), raws()
    for head, platform in enumerate(PLATFORMS):
        expected = old_predict(p, graphs, [head] * len(graphs))
        np.testing.assert_allclose(p.predict_raw(graphs, platform), expected, rtol=1e-5)
    every = p.predict_all(graphs, batch_size=3)
    for head, platform in enumerate(PLATFORMS):
        expected = old_predict(p, graphs, [head] * len(graphs))
        np.testing.assert_allclose(every[platform], expected, rtol=1e-5)
    records = toy_records()
    records = [replace(r, platform=PLATFORMS[i % 3]) for i, r in enumerate(records)]
    heads = [i % 3 for i in range(len(records))]
    np.testing.assert_allclose(
        p.predict_records(records), old_predict(p, [r.raw for r in records], heads), rtol=1e-5
    )


@pytest.mark.parametrize("network", ["nnlp", "brpnas", "kernel-sage"])
def test_no_graphs_give_empty_predictions(network: str) -> None:
    p = predictor(network)
    assert p.predict_raw([], PLATFORMS[0]).shape == (0,)
    assert {k: v.shape for k, v in p.predict_all([]).items()} == dict.fromkeys(PLATFORMS, (0,))
    assert p.predict_records([]).shape == (0,)


def test_to_batch_equals_pyg_collation() -> None:
    p, graphs = predictor("kernel-sage"), raws()
    heads = np.arange(len(graphs)) % 3
    ours = to_batch(p.schema, graphs, heads)
    theirs = Batch.from_data_list(
        [to_data(p.schema.encode(r), int(h)) for r, h in zip(graphs, heads, strict=True)]
    )
    assert ours.num_graphs == theirs.num_graphs == len(graphs)
    for key in ("x", "edge_index", "global_x", "platform", "kernel", "batch", "ptr"):
        a, b = ours[key], theirs[key]
        assert a.dtype == b.dtype and a.shape == b.shape, key
        assert torch.equal(a, b), key


def test_predict_log_raw_does_not_depend_on_the_batch_size() -> None:
    p, graphs = predictor("nnlp"), raws()
    one = predict_log_raw(p.net, p.schema, graphs, 1, batch_size=1)
    np.testing.assert_allclose(predict_log_raw(p.net, p.schema, graphs, 1), one, rtol=1e-5)


def test_encode_many_concatenates_encode() -> None:
    schema, graphs = predictor("nnlp").schema, raws()
    batch = schema.encode_many(graphs)
    singles = [schema.encode(r) for r in graphs]
    assert np.array_equal(batch.node_x, np.concatenate([f.node_x for f in singles]))
    assert np.array_equal(batch.global_x, np.stack([f.global_x for f in singles]))
    assert np.array_equal(batch.kernel_ids, np.concatenate([f.kernel_ids for f in singles]))
    offsets = np.cumsum([0] + [len(f.node_x) for f in singles])
    assert batch.ptr.tolist() == offsets.tolist()
    edges = np.concatenate([f.edge_index + o for f, o in zip(singles, offsets, strict=False)], 1)
    assert np.array_equal(batch.edge_index, edges)
    empty = schema.encode_many([])
    assert empty.node_x.shape == (0, schema.node_dim) and empty.edge_index.shape == (2, 0)
    assert empty.global_x.shape == (0, schema.global_dim) and empty.ptr.tolist() == [0]


def test_unseen_operators_take_the_other_slot() -> None:
    schema = FeatureSchema.fit(r.raw for r in toy_records())  # Conv, Relu
    raw = RawFeatures(
        ("Gelu", "Conv", OTHER, "Gelu", "Abs"),
        np.zeros((5, schema.node_dim - len(schema.op_vocab))),
        np.array([[0, 1], [1, 2]]),
        np.ones(schema.global_dim),
        np.zeros(5, dtype=np.int64),
    )
    assert schema.unseen_ops(raw) == ("Abs", "Gelu")  # "<other>" itself is in the vocabulary
    features = schema.encode(raw)
    assert features.unseen_ops == ("Abs", "Gelu")
    other = schema.op_vocab.index(OTHER)
    slots = features.node_x[:, : len(schema.op_vocab)].argmax(axis=1).tolist()
    assert slots == [other, schema.op_vocab.index("Conv"), other, other, other]
    assert np.array_equal(schema.encode_many([raw, raw]).node_x[5:], features.node_x)
