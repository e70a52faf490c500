"""``nnlat zoo list`` and ``nnlat zoo export``."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.graph import graph_key, load
from nnlat.zoo import CORPUS_FAMILY_MODULES, FAMILY_MODULES

runner = CliRunner()


def test_list_json_names_every_family() -> None:
    result = runner.invoke(app, ["zoo", "list", "--json"])
    assert result.exit_code == 0
    names = {row["name"] for row in json.loads(result.stdout)["families"]}
    corpus = {importlib.import_module(f"nnlat.zoo.{m}").FAMILY.name for m in CORPUS_FAMILY_MODULES}
    edge = {
        "cnn-cifar10",
        "cnn-imagenet",
        "cnn-kws",
        "vit-cifar100",
        "nasbench201-int8",
        "cnn-realblocks",
    }
    assert names == set(FAMILY_MODULES) | edge | corpus


@pytest.mark.slow
def test_export_writes_distinct_models_and_a_manifest(tmp_path: Path) -> None:
    out = tmp_path / "models"
    args = ["zoo", "export", "-f", "nasbench201", "-n", "4", "-s", "7", "-o", str(out), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["count"] == 4
    manifest = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert len({m["graph_hash"] for m in manifest}) == 4
    for record in manifest:
        # the file on disk re-loads to the hash recorded for it
        assert graph_key(load(out / record["file"])).digest == record["graph_hash"]
        assert record["family"] == "nasbench201" and "arch" in record["config"]
    # same seed, same models
    again = runner.invoke(app, [*args[:-3], "-o", str(tmp_path / "again"), "--json"])
    assert [m["graph_hash"] for m in json.loads(again.stdout)["models"]] == [
        m["graph_hash"] for m in manifest
    ]


def test_export_unknown_family_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "never"
    result = runner.invoke(app, ["zoo", "export", "-f", "lenet", "-n", "1", "-o", str(out)])
    assert result.exit_code == 2
    assert "unknown model family 'lenet'" in result.stderr and "resnet" in result.stderr
    assert not out.exists()


@pytest.mark.slow
def test_export_into_an_existing_folder_adds_to_its_manifest(tmp_path: Path) -> None:
    out = tmp_path / "models"
    for family in ("nasbench201", "squeezenet"):
        args = ["zoo", "export", "-f", family, "-n", "2", "-o", str(out)]
        assert runner.invoke(app, args).exit_code == 0
    again = ["zoo", "export", "-f", "squeezenet", "-n", "2", "-o", str(out)]
    assert runner.invoke(app, again).exit_code == 0  # the same files: no duplicate entries
    manifest = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert [m["family"] for m in manifest] == ["nasbench201"] * 2 + ["squeezenet"] * 2
    assert {m["file"] for m in manifest} == {p.name for p in out.glob("*.onnx")}


def test_list_at_80_columns_never_cuts_a_name() -> None:
    result = runner.invoke(app, ["zoo", "list"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert max(map(len, result.stdout.splitlines())) <= 80
    assert "…" not in result.stdout
    words = set(result.stdout.split())
    listed = json.loads(runner.invoke(app, ["zoo", "list", "--json"]).stdout)["families"]
    for row in listed:
        assert row["name"] in words and set(row["canonical"]) <= words
