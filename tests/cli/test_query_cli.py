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


def test_platforms_json_describes_a_vela_target_with_its_configuration_file(
    env: dict[str, str],
) -> None:
    pytest.importorskip("ethosu.vela")
    from nnlat.measure.pool import VELA_POOL, pool_config

    env = env | {"NNLAT_VELA_CONFIG": str(pool_config())}
    result = runner.invoke(app, ["platforms", "--json"], env=env)
    rows = {r["name"]: r for r in json.loads(result.stdout)["platforms"]}
    custom = next(name for name in VELA_POOL if ".nnlat_u85_" in name)
    details = rows[custom]["details"]
    assert details["accelerator"].startswith("ethos-u85-")
    assert details["system_config"].startswith("nnlat_U85_")
    assert details["config_files"][-1] == str(pool_config())
    assert rows[custom]["runtime"] == "vela"


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


def _stored(env: dict[str, str]) -> int:
    stats = json.loads(runner.invoke(app, ["db", "stats", "--json"], env=env).stdout)
    return int(stats["measurements"])


def test_an_unsupported_result_exits_1_in_every_mode(tmp_path: Path, env: dict[str, str]) -> None:
    import importlib.util

    from nnlat.measure.runner import available_platforms

    if importlib.util.find_spec("onnx2torch") is not None:
        pytest.skip("onnx2torch is installed: the torch backend runs ONNX models here")
    torch = next(p.name for p in available_platforms() if p.runtime == "torch")
    args = ["query", str(tmp_path / "tiny.onnx"), "-p", torch]
    text = runner.invoke(app, args, env=env)
    assert text.exit_code == 1 and "tiny.onnx" in text.stderr and "onnx2torch" in text.stderr
    as_json = runner.invoke(app, [*args, "--json"], env=env)
    assert as_json.exit_code == 1
    payload = json.loads(as_json.stdout)
    assert payload["status"] == "unsupported" and payload["model"].endswith("tiny.onnx")
    assert _stored(env) == 0  # never cached


def test_batch_over_a_hard_coded_batch_is_refused(tmp_path: Path, env: dict[str, str]) -> None:
    from onnx import TensorProto, helper

    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [1, -1])
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="flatten")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[shape],
    )
    onnx.save(helper.make_model(graph), tmp_path / "flat.onnx")
    for command in (["inspect"], ["query", "--max-time", "0.3"]):
        args = [command[0], str(tmp_path / "flat.onnx"), "-b", "16", *command[1:]]
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 2, result.output
        assert "flat.onnx" in result.stderr and "fixed batch of 1" in result.stderr
    assert _stored(env) == 0


def test_a_platform_typo_gets_did_you_mean(tmp_path: Path, env: dict[str, str]) -> None:
    name = reference_platform().name
    typo = ("y" if name.startswith("x") else "x") + name[1:]  # on a Xeon, "x…" is the name
    result = runner.invoke(app, ["query", str(tmp_path / "tiny.onnx"), "-p", typo], env=env)
    assert result.exit_code == 2
    assert f"did you mean {name!r}" in result.stderr


def test_a_directory_or_a_pytorch_file_is_explained(tmp_path: Path, env: dict[str, str]) -> None:
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / "saved_model.pb").write_bytes(b"")
    (tmp_path / "net.pt").write_bytes(b"PK")
    for path, message in (
        (tmp_path, "is a directory"),
        (saved, "tf2onnx"),
        (tmp_path / "net.pt", "nnlat export"),
    ):
        result = runner.invoke(app, ["query", str(path)], env=env)
        assert result.exit_code == 2 and message in result.stderr, result.stderr


def test_platforms_at_80_columns_show_whole_names(env: dict[str, str]) -> None:
    rows = json.loads(runner.invoke(app, ["platforms", "--json"], env=env).stdout)["platforms"]
    result = runner.invoke(app, ["platforms"], env={**env, "COLUMNS": "80"})
    assert result.exit_code == 0
    assert max(map(len, result.stdout.splitlines())) <= 80 and "…" not in result.stdout
    first_words = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert {r["name"] for r in rows} <= set(first_words)
    for row in rows:
        assert row["runs_onnx"] == (row["available"] and row["missing"] is None)
