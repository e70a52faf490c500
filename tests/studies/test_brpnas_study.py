"""The BRP-NAS reproduction protocol on a small imported NAS-Bench-201 table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nnlat.datasets.published import import_latency_table, read_latency_table
from nnlat.datasets.training import load_records
from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.training import TrainSettings
from nnlat.store import Store
from nnlat.studies.brpnas import BrpnasStudyConfig, nasbench201_archs, read_results, render, run
from nnlat.studies.methods import METHODS, MethodContext
from nnlat.studies.results import Results
from nnlat.testing.cells import additive_ms, spread_archs


def archs(count: int) -> list[str]:
    return spread_archs(count, 97)  # spread over the space


@pytest.fixture(scope="module")
def study_data(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[LatencyRecord], dict[str, str]]:
    folder = tmp_path_factory.mktemp("study")
    rows = [f"{i},{a},{additive_ms(a):.6f}" for i, a in enumerate(archs(26))]
    path = folder / "lab_additive_ms.csv"
    path.write_text("nb201_idx,arch_str,latency_ms\n" + "\n".join(rows) + "\n")
    store = Store.open("sqlite://")
    import_latency_table(
        store, read_latency_table(path, "nas-bench-201"), workers=1, cache_dir=folder
    )
    records = load_records(store, cache_dir=folder)
    arch_of = nasbench201_archs(store)
    return records, arch_of


@pytest.mark.slow
def test_every_method_runs_on_one_split_and_resumes(
    study_data: tuple[list[LatencyRecord], dict[str, str]], tmp_path: Path
) -> None:
    records, arch_of = study_data
    path = tmp_path / "study.jsonl"
    methods = [
        "layerwise",
        "cell-lr",
        "cell-xgboost",
        "gcn",
        "gcn-identity",
        "gcn-random",
        "gcn-directed",
        "gcn-b1",
        "gcn-b4",
        "nnlp",
        "gcn-live",
    ]
    config = BrpnasStudyConfig(
        tuple(methods), (0,), (12,), "lab-lab1.0-fp32", results_path=path, epochs=2,
        validation=4, largest=12, command="nnlat eval brpnas-nb201",
    )  # fmt: skip
    results = run(config, records, arch_of).rows
    assert [r.method for r in results] == methods
    assert {r.test_size for r in results} == {len(records) - 16}
    layerwise = results[0].metrics
    assert layerwise["acc_1"] == 1.0 and layerwise["spearman"] > 0.99  # the device is additive
    assert results[4].metrics["spearman"] == 0.0  # identity adjacency predicts a constant

    again = run(config, records, arch_of)
    assert len(again.rows) == len(methods) and len(read_results(path)) == len(methods)
    table = render(again)
    assert "| layerwise | 12 | 1 |" in table and "nnlat eval brpnas-nb201" in table
    assert f"({len(records)} networks with a distinct ONNX graph)" in table


@pytest.mark.slow
def test_every_method_follows_the_estimator_contract(
    study_data: tuple[list[LatencyRecord], dict[str, str]],
) -> None:
    records, arch_of = study_data
    context = MethodContext(TrainSettings(epochs=1, valid_fraction=0.25), archs=arch_of)
    for name in ("cell-lr", "cell-xgboost", "layerwise", "gcn", "xgboost", "nn-meter"):
        estimator = METHODS.get(name).build(context)
        assert not [k for k in vars(estimator) if k.endswith("_")]  # fitted state is fit's
        assert estimator.fit(records[:16]) is estimator
        assert estimator.predict(records[16:]).shape == (len(records) - 16,)


@pytest.mark.slow
def test_an_ensemble_predicts_the_geometric_mean_of_its_members(
    study_data: tuple[list[LatencyRecord], dict[str, str]],
) -> None:
    records, arch_of = study_data
    fit, test = records[:16], records[16:]

    def fit_predict(method: str, seed: int) -> np.ndarray:
        settings = TrainSettings(seed=seed, valid_fraction=4 / len(fit), epochs=2)
        context = MethodContext(settings, archs=arch_of)
        return METHODS.get(method).build(context).fit(fit).predict(test)

    members = [fit_predict("gcn", 3 + 1000 * i) for i in range(3)]
    ensemble = fit_predict("gcn-x3", 3)
    assert not np.allclose(members[0], members[1])  # the members differ
    assert np.allclose(ensemble, np.exp(np.log(members).mean(axis=0)), rtol=1e-5)


def test_too_few_networks_and_unknown_methods_are_refused(
    study_data: tuple[list[LatencyRecord], dict[str, str]],
) -> None:
    records, arch_of = study_data
    with pytest.raises(NnlatError, match="cannot hold"):
        run(BrpnasStudyConfig(("cell-lr",), (0,), (900,), largest=900), records, arch_of)
    with pytest.raises(NnlatError, match="unknown method 'gnn'"):
        run(BrpnasStudyConfig(("gnn",), (0,), (12,), validation=4, largest=12), records, arch_of)
    with pytest.raises(NnlatError, match="at most 12"):
        config = BrpnasStudyConfig(("cell-lr",), (0,), (20,), validation=4, largest=12)
        run(config, records, arch_of)


def test_the_report_rebuilds_from_rows_alone() -> None:
    config = BrpnasStudyConfig(("gcn",), (0,), platform="p", command="nnlat eval brpnas-nb201")
    empty = render(Results(config, []))
    assert "nnlat eval brpnas-nb201" in empty and "after the first –" in empty


def test_cli_rebuilds_the_report_and_refuses_an_empty_platform(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from nnlat.cli.main import app

    out = tmp_path / "brpnas"
    metrics = {
        "mape": 0.03,
        "rmspe": 0.04,
        "acc_1": 0.3,
        "acc_5": 0.8,
        "acc_10": 0.95,
        "spearman": 0.9,
    }
    lines = [
        {
            "method": "gcn",
            "train_size": 900,
            "seed": s,
            "test_size": 900,
            "metrics": metrics,
            "fit_seconds": 1.0,
        }
        for s in (0, 1)
    ]
    out.mkdir()
    (out / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = CliRunner().invoke(app, ["eval", "brpnas-nb201", "-o", str(out), "--report-only"])
    assert result.exit_code == 0, result.output
    table = (out / "README.md").read_text()
    assert "| gcn | 900 | 2 | 900 | 30.0 ± 0.0 | 80.0 ± 0.0 | 95.0 ± 0.0 |" in table
    assert "36 / 85.2 / 96.4" in table  # the published figures beside ours

    db = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    empty = CliRunner().invoke(app, ["eval", "brpnas-nb201", "-o", str(out), "--db", db])
    assert empty.exit_code != 0 and "import them first" in empty.output


def test_cli_trains_on_the_cell_graphs_of_a_file_without_importing(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from nnlat.cli.main import app

    rows = [f"{i},{a},{additive_ms(a):.6f}" for i, a in enumerate(spread_archs(152, 27))]
    path = tmp_path / "lab_additive_ms.csv"
    path.write_text("nb201_idx,arch_str,latency_ms\n" + "\n".join(rows) + "\n")
    out = tmp_path / "cells"
    args = ["eval", "brpnas-nb201", "--cells", str(path), "-m", "layerwise,gcn"]
    args += ["--seeds", "0", "--train-sizes", "30", "--test-after", "30", "--epochs", "2"]
    result = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["method"], r["test_size"]) for r in lines] == [
        ("layerwise", 152 - 130), ("gcn", 152 - 130),
    ]  # fmt: skip
    # the device is exactly additive over (stage, operation): the layer-wise sum is exact
    assert lines[0]["metrics"]["acc_1"] == 1.0
    assert "(152 cell graphs)" in (out / "README.md").read_text()
