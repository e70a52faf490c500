"""A TFLite model's original file in the store: kept, listed without it, exported, imported,
bounded, and added to old rows by migration 0004."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from nnlat.graph import graph_key, load
from nnlat.store import Store, StoreError, migrations
from nnlat.store.archive import read_archive, write_archive
from nnlat.testing import tiny_model
from nnlat.testing.tflite_models import handmade_tflite

INT8_ADD = handmade_tflite("ADD", (1, 8, 8, 16), "int8")


def test_tflite_source_round_trips_through_the_store_and_an_export(
    databases, tmp_path: Path
) -> None:
    store = databases.store()
    tflite, onnx_graph = load(INT8_ADD), load(tiny_model())
    store.upsert_model(tflite, family="add")
    store.upsert_model(onnx_graph)
    kept = store.get_model(graph_key(tflite).digest)
    assert kept is not None and (kept.source_format, kept.source_bytes) == ("tflite", INT8_ADD)
    assert kept.onnx_bytes == tflite.onnx_bytes  # the storage form is kept beside it
    plain = store.get_model(graph_key(onnx_graph).digest)
    assert plain is not None and (plain.source_format, plain.source_bytes) == (None, None)
    listed = {m.graph_hash: m for m in store.list_models()}
    assert listed[kept.graph_hash].source_format == "tflite"
    assert listed[kept.graph_hash].source_bytes is None  # listings leave the bytes out

    path = tmp_path / "store.jsonl.gz"
    assert store.export(path) == 2
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        records = {r["graph_hash"]: r for r in map(json.loads, list(lines)[1:])}
    assert records[kept.graph_hash]["source_format"] == "tflite"
    assert (
        records[kept.graph_hash]["source_b64"] and records[plain.graph_hash]["source_b64"] is None
    )

    other = databases.store()
    assert other.import_(path).models_added == 2
    assert other.get_model(kept.graph_hash) == kept
    assert other.get_model(plain.graph_hash) == plain


def test_an_import_fills_a_missing_source_and_never_erases_one(tmp_path: Path) -> None:
    graph = load(INT8_ADD)
    digest = graph_key(graph).digest
    full = Store.open("sqlite://")
    full.upsert_model(graph)
    path = tmp_path / "full.jsonl.gz"
    full.export(path)
    # the same model without its file (as a store before migration 0004 would hold it)
    header, models = read_archive(path)
    [(model, measurements)] = list(models)
    bare = model.model_copy(update={"source_format": None, "source_bytes": None})
    write_archive(tmp_path / "bare.jsonl.gz", header.platforms, [(bare, measurements)])

    store = Store.open("sqlite://")
    store.import_(tmp_path / "bare.jsonl.gz")
    assert store.get_model(digest).source_bytes is None
    store.import_(path)
    assert store.get_model(digest).source_bytes == INT8_ADD
    store.import_(tmp_path / "bare.jsonl.gz")
    assert store.get_model(digest).source_bytes == INT8_ADD


def test_an_oversized_or_unknown_source_is_refused_and_nothing_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open("sqlite://")
    graph = load(INT8_ADD)
    monkeypatch.setattr("nnlat.store.rows.MAX_SOURCE_BYTES", len(INT8_ADD) - 1)
    with pytest.raises(StoreError, match="over the store's limit"):
        store.upsert_model(graph)
    assert store.stats().models == 0
    monkeypatch.undo()

    store.upsert_model(graph)
    path = tmp_path / "store.jsonl.gz"
    store.export(path)
    header, models = read_archive(path)
    [(model, measurements)] = list(models)
    odd = model.model_copy(update={"source_format": "pytorch"})
    write_archive(tmp_path / "odd.jsonl.gz", header.platforms, [(odd, measurements)])
    other = Store.open("sqlite://")
    with pytest.raises(StoreError, match="cannot store a pytorch model's source"):
        other.import_(tmp_path / "odd.jsonl.gz")
    assert other.stats().models == 0


def test_migration_0004_leaves_old_models_as_onnx(databases) -> None:
    store = databases.store()
    old = load(tiny_model())
    store.upsert_model(old)
    with store.engine.begin() as connection:
        command.downgrade(migrations.alembic_config(connection), "0003")
    columns = {c["name"] for c in sa.inspect(store.engine).get_columns("models")}
    assert not {"source_format", "source"} & columns
    migrations.upgrade(store.engine)
    columns = {c["name"] for c in sa.inspect(store.engine).get_columns("models")}
    assert {"source_format", "source"} <= columns
    kept = store.get_model(graph_key(old).digest)
    assert kept is not None and kept.onnx_bytes == old.onnx_bytes
    assert (kept.source_format, kept.source_bytes) == (None, None)
    graph = load(INT8_ADD)
    store.upsert_model(graph)  # the new columns take a TFLite file
    assert store.get_model(graph_key(graph).digest).source_bytes == INT8_ADD
