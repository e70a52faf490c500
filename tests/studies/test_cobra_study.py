"""The COBRA study end to end on fake-timed campaigns; its baselines' features."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from nnlat.code import interpret_module
from nnlat.datasets.cobra import (
    append_records,
    measure_layers,
    measure_networks,
    measure_snippets,
    read_records,
    snippet_key,
)
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.predictor.code.encoder import EncoderConfig
from nnlat.predictor.code.pretraining import PretrainSettings
from nnlat.studies.cobra import CobraStudyConfig, interpret_networks, metrics, render, run
from nnlat.studies.cobra_baselines import brpnas_features, layer_sum, layerwise_scale
from nnlat.studies.cobra_tasks import onnx_features

FAKE = "fake-fake1.0-fp32-t1"
FAST = MeasureSpec(warmup_min_runs=1, warmup_max_s=0.05, min_runs=3, max_time_s=0.05)


def test_metrics_are_table_1s_columns() -> None:
    m = metrics([10.0, 10.0, 10.0, 10.0], [10.05, 10.4, 10.9, 12.0])
    assert m["acc_1"] == 0.25 and m["acc_5"] == 0.5 and m["acc_10"] == 0.75
    assert m["acc_25"] == 1.0
    assert m["mape"] == pytest.approx((0.005 + 0.04 + 0.09 + 0.2) / 4)


def test_brpnas_features_read_the_kind_and_parameters_off_the_snippet() -> None:
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, (3, 5), stride=2), torch.nn.ReLU())
    graph = interpret_module(net, {"input": (1, 3, 16, 16)})
    plain = brpnas_features(graph, ["Conv2d"])
    assert plain[0, 0] == 1.0 and plain[1, 1] == 1.0  # Conv2d, then an unknown kind
    assert plain[0].max() > 0 and plain.shape[0] == 2
    latencies = {snippet_key(s.text): 2.0 for s in graph.snippets}
    plus = brpnas_features(graph, ["Conv2d"], latencies)
    assert plus.shape[1] == plain.shape[1] + 1
    assert layer_sum(graph, latencies) == 4.0
    assert layerwise_scale([1.0, 2.0], [3.0, 6.0]) == pytest.approx(3.0)


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Fake-timed layer, network and snippet campaigns."""
    reg = backend_registry({"fake": FakeBackend})
    data = tmp_path_factory.mktemp("cobra") / "data"
    measure_layers(data / "layers.jsonl.gz", 40, FAKE, spec=FAST, backends=reg)
    measure_networks(data / "networks.jsonl.gz", 8, FAKE, spec=FAST, backends=reg)
    measure_snippets(
        data / "networks.jsonl.gz", data / "snippets.jsonl.gz", FAKE, spec=FAST, backends=reg
    )
    return data


def _config(data: Path, runs: Path, **changes: object) -> CobraStudyConfig:
    config = CobraStudyConfig(
        data_dir=data,
        results_dir=runs,
        seeds=(0,),
        pretrain=PretrainSettings(epochs=1),
        encoder=EncoderConfig(vocab_size=0, dim=16, layers=1, heads=2, ffn=32),
        vocab_size=256,
        command="test",
        scale_note="TOY",
    )
    return replace(config, gcn=config.gcn.model_copy(update={"epochs": 2}), **changes)


@pytest.mark.slow
def test_the_study_runs_every_method_and_resumes(campaigns: Path, tmp_path: Path) -> None:
    config = _config(campaigns, tmp_path / "runs")
    results = run(config)
    assert sorted(r.method for r in results.networks) == sorted(config.methods)
    report = render(results)
    assert (
        "**TOY**" in report
        and "| COBRA (sum readout, nnlat's default) | 1 |" in report
        and "| All |" in report
    )
    assert (tmp_path / "runs" / "model" / "cobra.json").exists()
    again = run(config)  # nothing left to train: the same rows come back
    assert [r.predicted for r in again.networks] == [r.predicted for r in results.networks]


@pytest.mark.slow
def test_a_spent_time_limit_trains_nothing_and_still_reports(
    campaigns: Path, tmp_path: Path
) -> None:
    results = run(_config(campaigns, tmp_path / "runs", time_limit_s=0.0))
    assert results.networks == [] and results.encoders == {} and results.layers == {}
    assert "## Table 1" in render(results)


@pytest.mark.slow
def test_worker_processes_run_the_tasks(campaigns: Path, tmp_path: Path) -> None:
    config = _config(campaigns, tmp_path / "runs", workers=2, methods=("layerwise", "cobra"))
    results = run(config)
    assert sorted(r.method for r in results.networks) == ["cobra", "layerwise"]
    assert set(results.encoders) == {"with-latency", "without-latency"}
    assert (tmp_path / "runs" / "encoder-without-latency.pt").exists()


def test_onnx_features_are_kept_per_network_and_read_back(campaigns: Path, tmp_path: Path) -> None:
    records = read_records(campaigns / "networks.jsonl.gz")[:2]
    first = onnx_features(records, tmp_path)
    kept = tmp_path / f"{records[0]['graph_hash']}.npz"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{r['graph_hash']}.npz" for r in records
    )
    # Mark the kept copy: a second call must return it, not export the network again.
    with np.load(kept) as arrays:
        marked = dict(arrays)
    marked["node_values"] = marked["node_values"] + 1.0
    np.savez_compressed(kept, **marked)
    again = onnx_features(records, tmp_path)
    assert np.array_equal(again[0].node_values, first[0].node_values + 1.0)
    assert np.array_equal(again[1].node_values, first[1].node_values)


def test_interpreted_graphs_are_kept_and_read_back(campaigns: Path, tmp_path: Path) -> None:
    config = _config(campaigns, tmp_path / "runs")
    assert interpret_networks(config) == 8
    kept = tmp_path / "runs" / "graphs.jsonl.gz"
    size = kept.stat().st_size
    assert interpret_networks(config) == 8 and kept.stat().st_size == size  # nothing new


def test_graphs_whose_snippets_were_never_timed_stop_the_study(
    campaigns: Path, tmp_path: Path
) -> None:
    """What a torch with other constructor signatures renders: texts nobody timed."""
    config = _config(campaigns, tmp_path / "runs")
    interpret_networks(config)
    kept = tmp_path / "runs" / "graphs.jsonl.gz"
    records = read_records(kept)
    for record in records:
        for snippet in record["graph"]["snippets"]:
            snippet[1] = snippet[1].replace("layer=", "layer=torch.nn.Identity()or")
    kept.unlink()
    append_records(kept, records)
    with pytest.raises(ValueError, match=r"only 0 of 8 networks .* renders snippets differently"):
        run(config)
