"""``nnlat query``, ``nnlat platforms`` and ``nnlat db`` against a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.measure.runner import reference_platform
from nnlat.testing import tiny_model

runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    onnx.save(tiny_model(), tmp_path / "tiny.onnx")
    return {"NNLAT_DB_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}


def test_query_measures_then_serves_from_cache(tmp_path: Path, env: dict[str, str]) -> None:
    args = ["query", str(tmp_path / "tiny.onnx"), "--max-time", "0.3", "--json"]
    first = runner.invoke(app, args, env=env)
    assert first.exit_code == 0, first.output
    payload = json.loads(first.stdout)
    for key in (
        "graph_hash",
        "platform",
        "batch_size",
        "cached",
        "status",
        "error",
        "peak_memory_bytes",
    ):
        assert key in payload
    assert set(payload["latency_ms"]) >= {"median", "mean", "p90", "p99", "std", "n"}
    assert payload["platform"] == reference_platform().name
    assert payload["status"] == "ok" and payload["cached"] is False
    second = json.loads(runner.invoke(app, args, env=env).stdout)
    assert second["cached"] is True and second["latency_ms"] == payload["latency_ms"]
    stats = json.loads(runner.invoke(app, ["db", "stats", "--json"], env=env).stdout)
    assert (stats["models"], stats["measurements"], stats["hit_ratio"]) == (1, 1, 0.5)


def test_export_import_round_trip(tmp_path: Path, env: dict[str, str]) -> None:
    runner.invoke(app, ["query", str(tmp_path / "tiny.onnx"), "--max-time", "0.3"], env=env)
    dump = tmp_path / "dump.jsonl.gz"
    assert runner.invoke(app, ["db", "export", str(dump)], env=env).exit_code == 0
    other = {"NNLAT_DB_URL": f"sqlite:///{tmp_path / 'other.sqlite'}"}
    first = json.loads(runner.invoke(app, ["db", "import", str(dump), "--json"], env=other).stdout)
    again = json.loads(runner.invoke(app, ["db", "import", str(dump), "--json"], env=other).stdout)
    assert (first["models_added"], first["measurements_added"]) == (1, 1)
    assert (again["models_added"], again["measurements_added"]) == (0, 0)


def test_platforms_lists_local_and_registered(env: dict[str, str]) -> None:
    result = runner.invoke(app, ["platforms", "--json"], env=env)
    rows = json.loads(result.stdout)["platforms"]
    names = {r["name"] for r in rows}
    assert reference_platform().name in names
    for row in rows:
        assert {
            "name",
            "hardware",
            "runtime",
            "runtime_version",
            "dtype",
            "threads",
            "available",
        } <= row.keys()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-p", "nonsense"], "not a platform name"),
        (["-p", "epyc-ort0.1-fp32-t1"], "not a platform of this host"),
        (["-b", "0"], "batch size must be positive"),
        (["-i", "nope=1x3x8x8"], "model's inputs are"),
    ],
)
def test_bad_queries_exit_non_zero_and_write_nothing(
    tmp_path: Path, env: dict[str, str], extra: list[str], message: str
) -> None:
    result = runner.invoke(app, ["query", str(tmp_path / "tiny.onnx"), *extra], env=env)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    stats = json.loads(runner.invoke(app, ["db", "stats", "--json"], env=env).stdout)
    assert stats["measurements"] == 0


def test_unreachable_database(tmp_path: Path) -> None:
    env = {"NNLAT_DB_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none"}
    result = runner.invoke(app, ["db", "stats"], env=env)
    assert result.exit_code == 2 and "cannot open the nnlat database" in result.stderr
