"""``nnlat eval``: every protocol runs from the command line and writes its report."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.datasets import build_dataset
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.querying import QueryEngine
from nnlat.store import Store
from nnlat.testing.models import tiny_model

pytestmark = pytest.mark.slow  # a measured dataset (module fixture), then trainings
PLATFORMS = ["fake-fake1.0-fp32-t1", "fake-fake1.0-fp16-t1"]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("eval")
    db = f"sqlite:///{root / 'db.sqlite'}"
    with Store.open(db) as store:
        build_dataset(
            store,
            ["squeezenet", "alexnet"],
            6,
            PLATFORMS,
            spec=MeasureSpec(min_runs=3, max_time_s=0.05),
            backends=backend_registry({"fake": FakeBackend}),
        )
        # Two held-out "real-world" models: only `eval held-out` may see them.
        engine = QueryEngine(
            store,
            MeasureSpec(min_runs=3, max_time_s=0.05),
            backends=backend_registry({"fake": FakeBackend}),
        )
        for channels in (4, 8):
            engine.query(
                tiny_model(channels=channels), PLATFORMS[0], family=f"realworld:t{channels}"
            )
    return {"NNLAT_DB_URL": db, "XDG_CACHE_HOME": str(root / "cache")}


def run(env: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(app, ["eval", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_unseen_structure_and_ablation_write_reports(env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "us"
    run(
        env,
        "unseen-structure",
        "-p",
        PLATFORMS[0],
        "-m",
        "flops-lr,nnlp",
        "--epochs",
        "1",
        "-o",
        str(out),
    )
    text = (out / "README.md").read_text()
    assert "| squeezenet |" in text and "| flops-lr | nnlp |" in text
    assert (out / "plot.png").stat().st_size > 0
    assert len((out / "results.jsonl").read_text().splitlines()) == 4
    run(
        env,
        "ablation",
        "-p",
        PLATFORMS[0],
        "--epochs",
        "1",
        "-f",
        "alexnet",
        "-o",
        str(tmp_path / "ab"),
    )
    ablation = (tmp_path / "ab" / "README.md").read_text()
    assert ablation.startswith("# Ablation") and "nnlp-wo-gnn" in ablation
    assert "](plot.png)" in ablation


def test_report_only_trains_nothing_and_names_missing_folds(
    env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "us"
    common = ["unseen-structure", "-p", PLATFORMS[0], "--epochs", "2", "-o", str(out)]
    run(env, *common, "-m", "flops-lr")
    run(env, *common, "-m", "nnlp", "-f", "alexnet")
    saved = (out / "results.jsonl").read_text()
    report = ["-f", "alexnet,squeezenet", "--report-only"]  # families: no database read
    run(env, *common, "-m", "flops-lr,nnlp,flops-macs-lr", *report, "--db", "sqlite://")
    assert (out / "results.jsonl").read_text() == saved  # nothing was fitted
    text = (out / "README.md").read_text()
    assert "| flops-lr | nnlp | flops-macs-lr |" in text
    assert "| squeezenet | " in text and " % | – | – |" in text
    assert "Folds not run: nnlp on squeezenet; flops-macs-lr on alexnet, squeezenet." in text
    assert "Most training epochs (early stopping on validation MAPE): nnlp 2." in text
    # The command is rebuilt from the options given, not from the test runner's argv.
    assert f"Command: `nnlat eval unseen-structure --platform {PLATFORMS[0]} --methods" in text
    assert "--report-only`" in text


def test_multi_platform_and_transfer_write_reports(env: dict[str, str], tmp_path: Path) -> None:
    run(env, "multi-platform", "--epochs", "1", "-o", str(tmp_path / "mp"))
    assert "multi-head" in (tmp_path / "mp" / "README.md").read_text()
    run(
        env,
        "transfer",
        "-p",
        PLATFORMS[0],
        "-f",
        "alexnet",
        "-t",
        PLATFORMS[1],
        "--ks",
        "2,3",
        "--epochs",
        "1",
        "-o",
        str(tmp_path / "tr"),
    )
    text = (tmp_path / "tr" / "README.md").read_text()
    assert (tmp_path / "tr" / "plot.png").stat().st_size > 0
    assert "## family:alexnet" in text and f"## platform:{PLATFORMS[1]}" in text
    # repeatable options are written once per value, as typed
    assert f"--family alexnet --target-platform {PLATFORMS[1]}" in text


def test_held_out_trains_on_zoo_sets_and_tests_on_realworld(
    env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "ho"
    run(env, "held-out", "-p", PLATFORMS[0], "-m", "flops-lr,nnlp", "--epochs", "1", "-o", str(out))
    text = (out / "README.md").read_text()
    for row in ("| nnlqp10 | 12 | flops-lr |", "| nnlqp10 | 12 | nnlp |", "| t4 |", "| t8 |"):
        assert row in text
    # The fixture measured no broad-zoo family: training on it again would add nothing.
    assert "| broad |" not in text and "not trained again" in text
    assert "](plot.png)" in text and (out / "plot.png").stat().st_size > 0


def test_held_out_without_realworld_records_says_what_to_run(env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["eval", "held-out", "-p", PLATFORMS[1]], env=env)
    assert result.exit_code != 0 and "measure_realworld.py" in result.output


def test_unknown_platform_fails_cleanly(env: dict[str, str]) -> None:
    result = CliRunner().invoke(
        app, ["eval", "unseen-structure", "-p", "mars-ort9.9-fp32-t1", "-m", "flops-lr"], env=env
    )
    assert result.exit_code == 2 and "mars-ort9.9-fp32-t1" in result.output
