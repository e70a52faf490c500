"""The store on SQLite, PostgreSQL and MariaDB: migrations, cache key, atomicity, export.

Every test gets new, empty databases from the ``databases`` / ``store`` fixtures
(conftest.py); the server backends carry the ``services`` marker.
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from nnlat.errors import NnlatError
from nnlat.graph import Graph, graph_key, load, summarize
from nnlat.measure.types import LatencyStats, Measurement
from nnlat.platform import Platform
from nnlat.store import Store, StoreError, StoreUnavailableError, migrations
from nnlat.store.archive import read_archive, write_archive
from nnlat.store.tables import MeasurementRow, metadata
from nnlat.testing import tiny_model

CPU = Platform(hardware="epyc", runtime="ort", runtime_version="1.31.1", dtype="fp32", threads=1)
GPU = Platform(
    hardware="h100", runtime="torch", runtime_version="2.4.0", dtype="fp16", device="cuda"
)
STATS = LatencyStats(
    n=200,
    mean_ms=1 / 3,
    median_ms=0.3125,
    p90_ms=0.41,
    p99_ms=0.5,
    std_ms=0.0123456789,
    cv=0.037037037037037035,
    min_ms=0.29,
    max_ms=0.61,
    median_ci95_ms=0.001,
    stable=True,
)


def tiny_graph(channels: int = 8, side: int = 32) -> Graph:
    """A distinct Conv→Relu graph per (channels, side)."""
    return load(tiny_model(channels=channels, side=side))


def measurement(graph: Graph, platform: Platform = CPU, **overrides: object) -> Measurement:
    """An ok measurement of ``graph`` on ``platform``; ``overrides`` replace fields."""
    values: dict[str, object] = {
        "graph_hash": graph_key(graph).digest,
        "platform": platform.name,
        "batch_size": 1,
        "input_shapes": {spec.name: spec.shape for spec in graph.inputs},
        "status": "ok",
        "stats": STATS,
        "compile_ms": 12.5,
        "cold_ms": 3.25,
        "peak_memory_bytes": 5_000_000_000,  # past 2**32: needs a 64-bit column
        "environment": {"cpu": "AMD EPYC 7B13", "onnxruntime": "1.31.1"},
        "created_at": datetime(2025, 3, 1, 12, 30, 45, 123456, tzinfo=UTC),
        "stop_reason": "ci",
        "warmup_settled": True,
    }
    values.update(overrides)
    return Measurement.model_validate(values)


def count_measurements(store: Store) -> int:
    return store.stats().measurements


# -- schema -------------------------------------------------------------------------------


def test_open_migrates_an_empty_database_to_head(databases) -> None:
    url = databases.url()
    with Store.open(url) as store:
        assert migrations.current(store.engine) == migrations.head()
        tables = set(sa.inspect(store.engine).get_table_names())
        assert {"models", "platforms", "measurements", "counters", "alembic_version"} <= tables
        stats = store.stats()
        assert (stats.models, stats.platforms, stats.measurements) == (0, 0, 0)
        assert stats.hit_ratio is None
    with Store.open(url) as again:  # already at head: opening again changes nothing
        assert migrations.current(again.engine) == migrations.head()


def test_initial_revision_downgrades_to_empty_and_back(store) -> None:
    with store.engine.begin() as connection:
        command.downgrade(migrations.alembic_config(connection), "base")
    assert set(sa.inspect(store.engine).get_table_names()) <= {"alembic_version"}
    assert migrations.current(store.engine) is None
    migrations.upgrade(store.engine)
    assert migrations.current(store.engine) == migrations.head()
    assert store.stats().lookup_hits == 0  # counters seeded again


def test_every_measurement_field_has_a_column() -> None:
    columns = set(MeasurementRow.__table__.columns.keys())
    for name in [*Measurement.model_fields, *LatencyStats.model_fields]:
        if name not in {"graph_hash", "platform", "stats"}:  # stored as ids / spread out
            assert name in columns, f"Measurement.{name}: add a column and a migration"


def test_migrations_build_exactly_the_declared_tables(store) -> None:
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []


def test_cache_key_and_lookups_are_indexed_under_their_documented_names(store) -> None:
    inspector = sa.inspect(store.engine)
    unique = {
        uq["name"]: tuple(uq["column_names"])
        for uq in inspector.get_unique_constraints("measurements")
    }
    assert unique["uq_measurements_cache_key"] == (
        "model_id",
        "platform_id",
        "batch_size",
        "input_shapes_hash",
        "protocol_version",
    )
    indexes = {
        ix["name"]: tuple(ix["column_names"]) for ix in inspector.get_indexes("measurements")
    }
    assert indexes["ix_measurements_platform_id_status"] == ("platform_id", "status")
    checks = {ck["name"] for ck in inspector.get_check_constraints("measurements")}
    assert "ck_measurements_status" in checks


# -- models and platforms ----------------------------------------------------------------


def test_upsert_model_is_idempotent_by_graph_hash(store) -> None:
    graph = tiny_graph()
    first = store.upsert_model(graph, family="tiny", tags=["b", "a"])
    second = store.upsert_model(load(tiny_model()), tags=["c", "a"])  # same structure
    assert first == second
    assert store.stats().models == 1

    stored = store.get_model(graph_key(graph).digest)
    summary = summarize(graph)
    assert stored is not None
    assert stored.family == "tiny"  # not erased by the second call's None
    assert stored.tags == ("a", "b", "c")
    assert stored.onnx_bytes == graph.onnx_bytes
    assert (stored.flops, stored.macs, stored.params) == (
        summary.flops,
        summary.macs,
        summary.params,
    )
    assert (stored.bytes_moved, stored.nodes, stored.kernels) == (
        summary.bytes,
        summary.nodes,
        summary.kernels,
    )
    assert stored.op_counts == {"Conv": 1, "Relu": 1}
    assert stored.onnx_size == len(graph.onnx_bytes)
    assert store.get_model("0" * 16) is None


def test_zoo_model_keeps_its_spec_instead_of_its_onnx(store) -> None:
    graph = tiny_graph(channels=4)
    spec = {"family": "tiny", "config": {"channels": 4, "resolution": 32}}
    store.upsert_model(graph, zoo_spec=spec)
    stored = store.get_model(graph_key(graph).digest)
    assert stored is not None
    assert stored.zoo_spec == spec
    assert stored.family == "tiny"
    assert stored.onnx_bytes is None
    assert stored.onnx_size == len(graph.onnx_bytes)

    with pytest.raises(StoreError, match="zoo spec"):
        store.upsert_model(graph, zoo_spec={"name": "tiny"})


def test_upsert_platform_keeps_one_row_per_name(store) -> None:
    first = store.upsert_platform(CPU, {"l2_kib": 512, "counters": [1.5, 2.0]})
    patched = CPU.model_copy(update={"runtime_version": "1.31.2"})  # same name
    assert store.upsert_platform(patched) == first
    record = store.get_platform(CPU.name)
    assert record is not None
    assert record.platform == patched
    assert record.descriptor == {"l2_kib": 512, "counters": [1.5, 2.0]}  # kept: none given
    assert store.get_platform("nope-ort1.0-fp32") is None
    store.upsert_platform(GPU)
    assert [r.platform.name for r in store.list_platforms()] == sorted([CPU.name, GPU.name])


# -- measurements -------------------------------------------------------------------------


def test_measurement_round_trips_and_is_found_by_its_key(store) -> None:
    graph = tiny_graph()
    store.upsert_model(graph)
    store.upsert_platform(CPU)
    result = measurement(graph)
    assert store.add_measurement(result) is True
    found = store.find_measurement(
        result.graph_hash, CPU, 1, {"x": [1, 3, 32, 32]}, result.protocol_version
    )
    assert found == result
    # every part of the key matters
    assert store.find_measurement(result.graph_hash, CPU, 2, result.input_shapes) is None
    assert store.find_measurement(result.graph_hash, CPU, 1, {"x": (1, 3, 64, 64)}) is None
    assert store.find_measurement(result.graph_hash, GPU.name, 1, result.input_shapes) is None
    assert store.find_measurement(result.graph_hash, CPU, 1, result.input_shapes, 999) is None


def test_same_cache_key_twice_keeps_one_row_and_refresh_replaces_it(store) -> None:
    graph = tiny_graph()
    store.upsert_model(graph)
    store.upsert_platform(CPU)
    original = measurement(graph)
    refreshed = measurement(
        graph,
        stats=STATS.model_copy(update={"median_ms": 0.25}),
        created_at=datetime(2025, 4, 1, tzinfo=UTC),
    )
    assert store.add_measurement(original) is True
    assert store.add_measurement(refreshed) is False  # kept: no refresh asked
    assert count_measurements(store) == 1
    assert store.find_measurement(graph_key(graph).digest, CPU, 1, original.input_shapes) == (
        original
    )

    assert store.add_measurement(refreshed, replace=True) is True
    assert count_measurements(store) == 1
    found = store.find_measurement(graph_key(graph).digest, CPU, 1, original.input_shapes)
    assert found == refreshed

    other_batch = measurement(graph, batch_size=8, input_shapes={"x": (8, 3, 32, 32)})
    assert store.add_measurement(other_batch) is True
    assert count_measurements(store) == 2


def test_failed_measurement_is_stored_with_its_error(store) -> None:
    graph = tiny_graph()
    store.upsert_model(graph)
    store.upsert_platform(CPU)
    error = "ONNXRuntimeError: [ShapeInferenceError] Incompatible dimensions — ünïcödé"
    failed = measurement(
        graph, status="failed", error=error, stats=None, compile_ms=None, cold_ms=None
    )
    store.add_measurement(failed)
    found = store.find_measurement(failed.graph_hash, CPU, 1, failed.input_shapes)
    assert found == failed
    assert found is not None and found.stats is None and found.error == error
    assert store.list_measurements() == []  # status "ok" by default
    assert store.list_measurements(status="failed") == [failed]
    assert store.stats().measurements_by_status == {"failed": 1}


def test_measurement_of_unknown_model_or_platform_is_refused(store) -> None:
    graph = tiny_graph()
    with pytest.raises(StoreError, match="upsert_model"):
        store.add_measurement(measurement(graph))
    store.upsert_model(graph)
    with pytest.raises(StoreError, match="upsert_platform"):
        store.add_measurement(measurement(graph))
    assert count_measurements(store) == 0


def test_a_write_that_fails_midway_leaves_no_row(store) -> None:
    graph = tiny_graph()
    store.upsert_model(graph)
    store.upsert_platform(CPU)
    result = measurement(graph)

    # The INSERT reaches the database, then the transaction dies before its commit.
    def crash_after_insert(conn, cursor, statement, *args) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO MEASUREMENTS"):
            raise RuntimeError("worker killed after the insert")

    sa.event.listen(store.engine, "after_cursor_execute", crash_after_insert)
    try:
        with pytest.raises(RuntimeError, match="worker killed"):
            store.add_measurement(result)
    finally:
        sa.event.remove(store.engine, "after_cursor_execute", crash_after_insert)
    assert store.find_measurement(result.graph_hash, CPU, 1, result.input_shapes) is None
    assert count_measurements(store) == 0

    # A row the database itself refuses (CHECK on status) is not written either...
    bogus = Measurement.model_construct(**{**dict(result), "status": "exploded"})
    with pytest.raises(StoreError, match="nothing was written"):
        store.add_measurement(bogus)
    assert count_measurements(store) == 0

    # ... and a refused refresh leaves the old row whole.
    store.add_measurement(result)
    with pytest.raises(StoreError, match="nothing was written"):
        store.add_measurement(bogus, replace=True)
    assert store.find_measurement(result.graph_hash, CPU, 1, result.input_shapes) == result


def test_losing_an_insert_race_is_not_an_error(databases) -> None:
    url = databases.url()
    with Store.open(url) as winner, Store.open(url) as loser:
        graph = tiny_graph()
        result = measurement(graph)
        winner.upsert_platform(CPU)

        # Just before the loser inserts, another worker stores the same key and commits.
        def competitor_goes_first(conn, cursor, statement, *args) -> None:
            text = statement.lstrip().upper()
            if (
                text.startswith("INSERT INTO MODELS")
                and winner.get_model(result.graph_hash) is None
            ):
                winner.upsert_model(graph, family="winner")
            if text.startswith("INSERT INTO MEASUREMENTS") and count_measurements(winner) == 0:
                winner.add_measurement(result.model_copy(update={"source": "winner"}))

        sa.event.listen(loser.engine, "before_cursor_execute", competitor_goes_first)
        loser.upsert_model(graph)
        assert loser.add_measurement(result) is False  # retried, found the key, kept it

        stored = loser.find_measurement(result.graph_hash, CPU, 1, result.input_shapes)
        assert stored is not None and stored.source == "winner"
        assert count_measurements(loser) == 1 and loser.stats().models == 1
        model = loser.get_model(result.graph_hash)
        assert model is not None and model.family == "winner"


def test_list_measurements_filters_by_platform_family_and_status(store) -> None:
    resnet, vgg = tiny_graph(channels=8), tiny_graph(channels=16)
    store.upsert_model(resnet, family="resnet")
    store.upsert_model(vgg, family="vgg")
    store.upsert_platform(CPU)
    store.upsert_platform(GPU)
    rows = [
        measurement(resnet, CPU),
        measurement(resnet, GPU),
        measurement(vgg, CPU),
        measurement(vgg, GPU, status="unsupported", error="fp16 Conv", stats=None),
    ]
    for row in rows:
        store.add_measurement(row)
    assert store.list_measurements() == rows[:3]
    assert store.list_measurements(platform=CPU) == [rows[0], rows[2]]
    assert store.list_measurements(platform=GPU.name, status=None) == [rows[1], rows[3]]
    assert store.list_measurements(family="vgg", status=None) == rows[2:]
    assert store.list_measurements(family="vgg", platform=GPU, status="unsupported") == [rows[3]]
    assert store.stats().measurements_by_platform == {CPU.name: 2, GPU.name: 2}


def test_record_lookup_counts_hits_and_misses(store) -> None:
    for hit in (True, True, True, False):
        store.record_lookup(hit)
    stats = store.stats()
    assert (stats.lookup_hits, stats.lookup_misses) == (3, 1)
    assert stats.hit_ratio == 0.75


# -- export / import ----------------------------------------------------------------------


def _populate(store: Store) -> list[Graph]:
    graphs = [tiny_graph(channels=c) for c in (4, 8, 16)]
    store.upsert_model(graphs[0], zoo_spec={"family": "tiny", "config": {"channels": 4}})
    store.upsert_model(graphs[1], family="tiny", tags=["handmade"])
    store.upsert_model(graphs[2])  # no measurements at all
    store.upsert_platform(CPU, {"l2_kib": 512})
    store.upsert_platform(GPU, {"sm": 132, "peak_tflops": 989.4})
    store.upsert_platform(CPU.model_copy(update={"threads": 8}))  # no measurements at all
    store.add_measurement(measurement(graphs[0], CPU))
    store.add_measurement(measurement(graphs[0], GPU, environment={}, peak_memory_bytes=None))
    store.add_measurement(
        measurement(graphs[1], CPU, status="failed", error="boom", stats=None, batch_size=4)
    )
    return graphs


def _contents(store: Store, graphs: list[Graph]) -> tuple:
    models = [store.get_model(graph_key(g).digest) for g in graphs]
    return models, store.list_platforms(), store.list_measurements(status=None)


def test_export_then_import_round_trips_exactly_and_twice_adds_nothing(
    databases, tmp_path: Path
) -> None:
    source = databases.store()
    graphs = _populate(source)
    path = tmp_path / "store.jsonl.gz"
    assert source.export(path) == 3

    target = databases.store()
    report = target.import_(path)
    assert (report.models_read, report.models_added) == (3, 3)
    assert (report.measurements_read, report.measurements_added) == (3, 3)
    assert _contents(target, graphs) == _contents(source, graphs)

    again = target.import_(path)
    assert (again.models_added, again.measurements_added) == (0, 0)
    stats = target.stats()
    assert (stats.models, stats.platforms, stats.measurements) == (3, 3, 3)
    assert _contents(target, graphs) == _contents(source, graphs)

    # importing into the source itself is a no-op too
    assert source.import_(path).measurements_added == 0


def test_export_of_one_platform_keeps_only_its_measurements_and_models(
    store, tmp_path: Path
) -> None:
    graphs = _populate(store)
    path = tmp_path / "gpu.jsonl.gz"
    assert store.export(path, [GPU.name]) == 1  # only graphs[0] was measured on the GPU
    header, models = read_archive(path)
    assert [r.platform.name for r in header.platforms] == [GPU.name]
    [(model, measurements)] = list(models)
    assert model.graph_hash == graph_key(graphs[0]).digest
    assert [m.platform for m in measurements] == [GPU.name]
    with pytest.raises(StoreError, match="no platform mars"):
        store.export(tmp_path / "none.jsonl.gz", ["mars"])


def test_export_file_is_gzip_json_lines_with_a_header(store, tmp_path: Path) -> None:
    graphs = _populate(store)
    path = tmp_path / "store.jsonl.gz"
    store.export(path)
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    header, models = records[0], records[1:]
    assert header["format"] == "nnlat-store" and header["version"] == 1
    assert {p["platform"]["hardware"] for p in header["platforms"]} == {"epyc", "h100"}
    by_hash = {m["graph_hash"]: m for m in models}
    zoo = by_hash[graph_key(graphs[0]).digest]
    assert zoo["onnx_b64"] is None and zoo["zoo_spec"]["family"] == "tiny"
    assert len(zoo["measurements"]) == 2 and "graph_hash" not in zoo["measurements"][0]
    assert by_hash[graph_key(graphs[1]).digest]["onnx_b64"]


@pytest.mark.slow
def test_import_of_many_models_crosses_chunk_boundaries(databases, tmp_path: Path) -> None:
    # Synthetic archive of 1,200 models on two platforms, written through a real store.
    source = databases.store()
    source.upsert_platform(CPU)
    source.upsert_platform(GPU)
    graph = tiny_graph()
    source.upsert_model(graph)
    base = source.get_model(graph_key(graph).digest)
    assert base is not None

    def models():
        for i in range(1200):
            digest = f"{i:016x}"
            model = base.model_copy(update={"graph_hash": digest, "onnx_bytes": None})
            yield (
                model,
                [
                    measurement(graph, CPU, graph_hash=digest),
                    measurement(graph, GPU, graph_hash=digest, batch_size=2),
                ],
            )

    path = tmp_path / "many.jsonl.gz"
    write_archive(path, source.list_platforms(), models())
    target = databases.store()
    report = target.import_(path)
    assert (report.models_added, report.measurements_added) == (1200, 2400)
    assert target.find_measurement(f"{1199:016x}", GPU, 2, {"x": (1, 3, 32, 32)}) is not None
    assert target.import_(path).measurements_added == 0


def test_import_rejects_a_file_that_is_not_an_export(store, tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl.gz"
    with gzip.open(junk, "wt") as out:
        out.write('{"hello": "world"}\n')
    with pytest.raises(StoreError, match="not a valid nnlat store export"):
        store.import_(junk)
    with pytest.raises(StoreError, match="cannot read"):
        store.import_(tmp_path / "missing.jsonl.gz")


def test_export_to_an_unwritable_path_is_a_clear_error(store, tmp_path: Path) -> None:
    _populate(store)
    with pytest.raises(StoreError, match="cannot write"):
        store.export(tmp_path / "no" / "such" / "folder" / "store.jsonl.gz")


# -- connection failures -------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://postgres:s3cret@127.0.0.1:1/test",
        "mysql://root:s3cret@127.0.0.1:1/test",
    ],
)
def test_unreachable_database_raises_store_unavailable(url: str) -> None:
    with pytest.raises(StoreUnavailableError) as caught:
        Store.open(url)
    message = str(caught.value)
    assert isinstance(caught.value, NnlatError)
    assert "127.0.0.1:1" in message and "***" in message and "s3cret" not in message
    assert "NNLAT_DB_URL" in message


def test_unsupported_database_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match="does not support 'oracle'"):
        Store.open("oracle://scott:tiger@db/orcl")
