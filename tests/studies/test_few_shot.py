"""Few-shot adaptation to unseen devices: pools, draws, resuming, errors, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.datasets.cell_graphs import cell_records
from nnlat.datasets.published import LatencyTable, PublishedDataError, read_latency_table
from nnlat.predictor.training import TrainSettings
from nnlat.predictor.transfer import MIN_RECORDS_FOR_VALIDATION
from nnlat.studies.few_shot import (
    LARGE_K,
    FewShotConfig,
    FewShotError,
    adapt,
    draw_shots,
    pool_speed,
    pretrain,
    read_results,
    render,
    run,
    summary,
    training_pool,
)
from nnlat.studies.results import Results
from nnlat.testing.cells import ADDITIVE_MS, additive_ms, spread_archs

GPU_MS = ADDITIVE_MS
# The CPU's costs rank operations unlike the GPU's (pooling dear, convolutions cheap).
CPU_MS = np.array([0.3, 0.2, 0.4, 2.5, 0.3, 0.3, 0.5, 3.1, 0.4, 0.4, 0.6, 3.9, 3.0])
QUICK = TrainSettings(epochs=150, batch_size=16, valid_fraction=0.0, device="cpu")
TINY = {"hidden": 16, "layers": 2}


def archs(count: int) -> list[str]:
    return spread_archs(count, 53)


@pytest.fixture(scope="module")
def help_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two batch sizes of one GPU, a CPU, and a phone exactly 3x slower than the CPU."""
    rows = []
    for i, arch in enumerate(archs(48)):
        gpu, cpu = additive_ms(arch, GPU_MS), additive_ms(arch, CPU_MS)
        rows.append(f"{i},{arch},{gpu:.5f},{gpu / 4:.5f},{cpu:.5f},{3 * cpu:.5f}")
    path = tmp_path_factory.mktemp("help") / "help_latency_ms.csv"
    path.write_text("nb201_idx,arch_str,gpu_1,gpu_32,cpu,phone\n" + "\n".join(rows) + "\n")
    return path


def study(table: LatencyTable, tmp_path: Path, **kwargs):  # type: ignore[no-untyped-def]
    options = {
        "shots": (3, 5), "seeds": (0, 1), "train_archs": 30, "config": TINY,
        "pretrain_settings": QUICK, "results_path": tmp_path / "r.jsonl",
        "pretrained_dir": tmp_path / "pretrained",
    }  # fmt: skip
    hooks = {k: kwargs.pop(k) for k in ("on_pretrain", "on_result") if k in kwargs}
    tuples = {k: tuple(v) for k, v in kwargs.items() if isinstance(v, list)}
    config = FewShotConfig(**{**options, **kwargs, **tuples})
    return run(config, table, table, **hooks).rows


@pytest.mark.slow
def test_each_device_is_left_out_with_its_other_batch_sizes_and_results_resume(
    help_file: Path, tmp_path: Path
) -> None:
    table = read_latency_table(help_file, "nas-bench-201")
    pretrained: list[list[str]] = []
    results = study(table, tmp_path, on_pretrain=lambda pool: pretrained.append(list(pool)))
    pools = {r.target: r.pool for r in results}
    assert pools == {
        "gpu_1": ["cpu", "phone"],  # gpu_32 is the same hardware: left out too
        "gpu_32": ["cpu", "phone"],
        "cpu": ["gpu_1", "gpu_32", "phone"],
        "phone": ["gpu_1", "gpu_32", "cpu"],
    }
    assert len(results) == 4 * 2 * 2 * 3  # targets × k × seeds × modes
    assert {r.test_size for r in results} == {48 - 5}  # one test set: after the largest k
    assert {r.copied_from for r in results if r.target == "phone"} == {"cpu"}  # 3x the CPU
    assert all(0 <= r.metrics["acc_10"] <= 1 and -1 <= r.metrics["spearman"] <= 1 for r in results)
    # One pre-training per distinct pool, saved; gpu_1 and gpu_32 share theirs.
    assert len(pretrained) == 4 and len(list((tmp_path / "pretrained").iterdir())) == 3
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    again = study(table, tmp_path, on_pretrain=lambda pool: pytest.fail("retrained"))
    assert (tmp_path / "r.jsonl").read_text().splitlines() == lines
    assert again == results == read_results(tmp_path / "r.jsonl")
    rows = summary(results)
    assert [(row["shots"], row["mode"]) for row in rows] == [
        (3, "shift"), (3, "heads"), (3, "all"), (5, "shift"), (5, "heads"), (5, "all"),
    ]  # fmt: skip
    assert all(row["targets"] == 4 and row["choice"] == "random" for row in rows)
    table_md = render(Results(FewShotConfig(command="nnlat eval few-shot"), results))
    assert "| phone | random | shift |" in table_md and "MAPLE: Acc(10 %) 0.87" in table_md


@pytest.mark.slow
def test_the_shots_of_a_seed_are_nested_and_differ_between_seeds(
    help_file: Path, tmp_path: Path
) -> None:
    table = read_latency_table(help_file, "nas-bench-201")
    results = study(table, tmp_path, target_devices=["phone"], modes=["shift"], shots=(3, 40))
    by = {(r.shots, r.seed): r for r in results}
    # the shift is fitted on the shots alone: more shots move it, another draw moves it
    assert by[3, 0].metrics != by[40, 0].metrics and by[3, 0].metrics != by[3, 1].metrics


@pytest.mark.slow
def test_adaptation_budget_grows_once_early_stopping_has_records_to_judge(
    help_file: Path, tmp_path: Path
) -> None:
    table = read_latency_table(help_file, "nas-bench-201")
    predictor = pretrain(table, ["gpu_1", "cpu"], archs=30, config=TINY, settings=QUICK)
    records = cell_records(table, "phone")
    budgets = {}
    for k in (LARGE_K - 1, LARGE_K):
        shots = (records * 3)[:k]  # repeats are fine: only the settings are looked at
        adapted, _ = adapt(predictor, shots, "heads", seed=0)
        budgets[k] = adapted.info["settings"], adapted.info["fine_tuned_on"]
    gentle, large = budgets[LARGE_K - 1][0], budgets[LARGE_K][0]
    assert (gentle["lr"], gentle["epochs"]) == (1e-4, 30)
    assert (large["lr"], large["epochs"], large["batch_size"]) == (3e-4, 100, 16)
    assert budgets[LARGE_K][1]["validation_records"] >= MIN_RECORDS_FOR_VALIDATION


@pytest.mark.slow
def test_spread_shots_span_the_predicted_latencies_and_are_tested_on_nothing_else(
    help_file: Path, tmp_path: Path
) -> None:
    table = read_latency_table(help_file, "nas-bench-201")
    results = study(table, tmp_path, target_devices=["phone"], modes=["shift"], choice="spread")
    assert {(r.choice, r.test_size) for r in results if r.seed == 0} <= {
        ("spread", n) for n in range(48 - 8, 48 - 5 + 1)
    }  # the shots of k = 3 and 5 are left out of the test set, whether they overlap or not
    pool = training_pool(table, ["gpu_1", "gpu_32", "cpu"], table, "phone")
    predictor = pretrain(
        table, pool, archs=30, config=TINY, settings=QUICK, cache_dir=tmp_path / "pretrained"
    )
    records = cell_records(table, "phone")
    speed = pool_speed(predictor, records)
    picks, test = draw_shots(len(records), (3, 5), 0, speed)
    rank = np.argsort(np.argsort(speed))  # 0 = predicted fastest
    for k, chosen in picks.items():  # one shot per k-th of the ranking, fastest to slowest
        assert [int(rank[i]) * k // len(records) for i in chosen] == list(range(k))
    assert not set(test) & {i for chosen in picks.values() for i in chosen}
    assert len(test) + len({i for c in picks.values() for i in c}) == len(records)


def test_impossible_studies_are_refused(help_file: Path, tmp_path: Path) -> None:
    table = read_latency_table(help_file, "nas-bench-201")
    fbnet = LatencyTable(help_file, "fbnet", [], [], [], np.zeros((0, 0)))
    with pytest.raises(FewShotError, match="one space"):
        run(FewShotConfig(), table, fbnet)
    with pytest.raises(FewShotError, match="unknown modes"):
        study(table, tmp_path, modes=["magic"])
    with pytest.raises(FewShotError, match="unknown shot choice"):
        study(table, tmp_path, choice="best")
    with pytest.raises(FewShotError, match="too few for k=48"):
        study(table, tmp_path, shots=(3, 48), target_devices=["cpu"])
    with pytest.raises(FewShotError, match="no training device is left"):
        study(table, tmp_path, train_devices=["gpu_1"], target_devices=["gpu_32"])
    with pytest.raises(PublishedDataError, match="no device 'tpu'"):
        study(table, tmp_path, train_devices=["tpu"])


@pytest.mark.slow
def test_cli_adapts_to_the_devices_of_another_file_and_prints_json(
    help_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # pre-trained predictors
    lines = help_file.read_text().splitlines()
    new = tmp_path / "new_devices_ms.csv"
    new.write_text("\n".join(["nb201_idx,arch_str,npu"] + [
        ",".join([*line.split(",")[:2], str(0.5 * float(line.split(",")[4]))])
        for line in lines[1:]
    ]) + "\n")  # fmt: skip
    args = ["eval", "few-shot", "-s", "nas-bench-201", "--train-file", str(help_file)]
    args += ["--target-file", str(new), "--train-devices", "gpu_1,cpu", "--shots", "3"]
    args += ["--modes", "shift,heads", "--train-archs", "20", "-o", str(tmp_path / "fs"), "--json"]
    report = tmp_path / "fs" / "README.md"
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert [(r["target"], r["pool"], r["mode"]) for r in payload["results"]] == [
        ("npu", ["gpu_1", "cpu"], "shift"), ("npu", ["gpu_1", "cpu"], "heads"),
    ]  # fmt: skip
    assert payload["results"][0]["copied_from"] == "cpu"
    assert "nnlat eval few-shot" in report.read_text()
    report.unlink()
    again = CliRunner().invoke(app, [*args, "--report-only"])  # reads the JSONL, trains nothing
    assert again.exit_code == 0 and json.loads(again.stdout)["results"] == payload["results"]
    assert "--report-only" in report.read_text()  # how this report was made
    bad = CliRunner().invoke(app, [*args[:6], "--target-devices", "tpu"])
    assert bad.exit_code == 2 and "no device 'tpu'" in bad.output
