"""The PerfSAGE study: one test split per space, specialised and generalised runs, a report."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from nnlat.features.records import LatencyRecord
from nnlat.predictor.training import TrainSettings
from nnlat.studies import perfsage as study
from nnlat.testing.records import toy_records

NPU = "u55-fake-vela5.2-int8"


def spaces() -> list[LatencyRecord]:
    """The toy graphs as two design spaces on an NPU with latency and memory."""
    out = []
    for i, r in enumerate(toy_records(NPU)):
        family = "cnn-kws" if i % 2 else "cnn-cifar10"
        memory = 1000.0 + float(r.raw.graph_values[1]) / 100
        out.append(dataclasses.replace(r, family=family, memory_bytes=memory))
    return out


def small_latency_study(
    tmp_path: Path, parts: tuple[str, ...], epochs: int
) -> study.PerfsageConfig:
    """Two toy spaces, latency only, a tiny network: ``parts`` in a few seconds."""
    return study.PerfsageConfig(
        spaces=("cnn-kws", "cnn-cifar10"),
        targets=("latency",),
        settings=TrainSettings(epochs=epochs, device="cpu", valid_fraction=0.25),
        config={"hidden": 8, "layers": 1, "head_width": 8},
        parts=parts,
        test_fraction=0.34,
        results_path=tmp_path / "results.jsonl",
    )


def test_study_runs_every_part_and_renders(tmp_path: Path) -> None:
    config = study.PerfsageConfig(
        spaces=("cnn-kws", "cnn-cifar10", "vit-cifar100"),  # no vit records: left out
        targets=("latency", "memory"),
        settings=TrainSettings(epochs=2, device="cpu", valid_fraction=0.25),
        config={"hidden": 8, "layers": 1, "head_width": 8},
        test_fraction=0.34,
        alphas=(0.0, 10.0),
        results_path=tmp_path / "results.jsonl",
        command="nnlat eval perfsage",
        save_generalised=tmp_path / "generalised",
    )
    results = study.run(config, spaces())
    assert (tmp_path / "generalised" / "predictor.json").exists()
    runs = {(r.method, r.mode, r.trained_on) for r in results.rows}
    assert ("perfsage", "specialised", "cnn-kws") in runs
    assert ("perfsage", "generalised", "all") in runs
    assert ("gcn", "specialised", "cnn-cifar10") in runs
    assert ("perfsage-wo-cfe", "generalised", "all") in runs
    assert ("perfsage-alpha0", "generalised", "all") in runs
    assert not any(r.method == "nn-meter" for r in results.rows)  # Table 7: CPU only
    # one test set per space, shared by every run and both targets
    tests = {(r.space, r.test_size) for r in results.rows}
    assert len(tests) == 2
    assert {r.target for r in results.rows} == {"latency", "memory"}
    report = study.render(results)
    assert "## Table 6" in report and "## Table 4" in report and "Figure 4" in report
    assert "vit-cifar100" not in report.split("## Table 6")[1]
    written = study.plot(results, tmp_path)
    assert {p.name for p in written} == {study.FIGURE3, study.FIGURE4}

    again = study.run(config, spaces())  # resumes: nothing trains again
    assert len(again.rows) == len(results.rows)
    rebuilt = study.run(dataclasses.replace(config, fit_missing=False), [])
    assert study.render(rebuilt).count("%") == report.count("%")


def test_table7_fits_the_kernel_predictor_on_cpu_latency(tmp_path: Path) -> None:
    cpu = [dataclasses.replace(r, platform="xeon-litert2.3-int8-t1") for r in spaces()]
    config = study.PerfsageConfig(
        spaces=("cnn-kws", "cnn-cifar10"),
        targets=("latency", "memory"),
        parts=("table7",),
        test_fraction=0.34,
        results_path=tmp_path / "results.jsonl",
    )
    results = study.run(config, cpu)
    runs = {(r.method, r.mode, r.trained_on) for r in results.rows}
    assert runs == {
        ("nn-meter", "specialised", "cnn-kws"),
        ("nn-meter", "specialised", "cnn-cifar10"),
        ("nn-meter", "generalised", "all"),
    }
    assert {r.target for r in results.rows} == {"latency"}  # no memory cell: a sum is no peak
    assert all(r.unseen_kernels is not None and r.non_square == 0 for r in results.rows)
    report = study.render(results)
    assert "## Table 7" in report and "unseen kernel pattern" in report


def test_the_loss_part_trains_the_log_loss_beside_table6s_perfsage(tmp_path: Path) -> None:
    config = small_latency_study(tmp_path, ("loss",), epochs=2)
    results = study.run(config, spaces())
    runs = {(r.method, r.mode, r.trained_on) for r in results.rows}
    assert runs == {
        ("perfsage-log", "specialised", "cnn-kws"),
        ("perfsage-log", "specialised", "cnn-cifar10"),
        ("perfsage-log", "generalised", "all"),
    }
    report = study.render(results)
    loss = report.split("## Beyond the paper")[1]
    assert "PerfSAGE, log loss (specialised)" in loss and "NNLP (nnlat" not in loss
    assert "## Beyond the paper" not in study.render(dataclasses.replace(results, rows=[]))
    nnlp = {"hidden": 8, "layers": 1}  # NNLP has no head_width
    saved = tmp_path / "generalised"
    both = study.run(
        dataclasses.replace(config, parts=("loss", "nnlp"), config=nnlp, save_generalised=saved),
        spaces(),
    )
    assert (tmp_path / "generalised-nnlp" / "predictor.json").exists()
    assert not saved.exists()  # perfsage-log (resumed here) is not kept, nor trained again
    assert ("nnlp", "generalised", "all") in {(r.method, r.mode, r.trained_on) for r in both.rows}
    beyond = study.render(both).split("## Beyond the paper")[1]
    assert "| NNLP (nnlat's network, log loss) (specialised) |" in beyond


def test_split_is_by_graph_and_the_same_for_every_method() -> None:
    records = spaces()
    first = study.split_space(records, 0.2, seed=3)
    assert first == study.split_space(records, 0.2, seed=3)
    assert study.cap_per_space(records, 2) == [r for r in records[:4]]
    # records alternate cifar10 (even) and kws (odd): kws alone gets a third graph
    capped = study.cap_per_space(records, 2, {"cnn-kws": 3})
    assert capped == [records[i] for i in (0, 1, 2, 3, 5)]


def test_eval_command_refuses_a_space_cap_it_cannot_read_or_apply() -> None:
    from typer.testing import CliRunner

    from nnlat.cli.main import app

    base = ["eval", "perfsage", "--report-only", "--spaces", "cnn-kws"]
    for cap, said in (
        ("cnn-kws", "SPACE=N"),
        ("cnn-kws=5", "SPACE=N"),
        ("vit-cifar100=50", "not in --spaces"),
    ):
        result = CliRunner().invoke(app, [*base, "--space-cap", cap])
        assert result.exit_code == 2 and said in result.output, result.output


def test_eval_command_rebuilds_the_report_from_its_results(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from nnlat.cli.main import app

    config = small_latency_study(tmp_path, ("table6",), epochs=1)
    study.run(config, spaces())
    args = ["eval", "perfsage", "--report-only", "--spaces", "cnn-kws,cnn-cifar10"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = (tmp_path / "README.md").read_text()
    assert "--report-only" in report and "*cnn-kws*" in report and "Eagle" in report
