"""Per-node profiles survive the store, its export/import (which fills a stored gap) and
migration 0005; a profile is attached to a stored measurement without touching its latency."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from alembic import command

from nnlat.graph import graph_key, load
from nnlat.measure.types import LatencyStats, Measurement, NodeProfile, NodeTime
from nnlat.platform import Platform
from nnlat.store import Store, migrations
from nnlat.testing import tiny_model

CPU = Platform(hardware="epyc", runtime="ort", runtime_version="1.31.1", dtype="fp32", threads=1)
PROFILE = NodeProfile(
    runtime="onnxruntime",
    runtime_version="1.32.0",
    runs=3,
    nodes=(
        NodeTime(name="z_nchwc", op="Conv", ms=0.125, node_index=0),
        NodeTime(name="ReorderOutput", op="ReorderOutput", ms=0.0625),
    ),
)


def _stored(store: Store, profile: NodeProfile | None = None) -> Measurement:
    graph = load(tiny_model())
    store.upsert_model(graph)
    store.upsert_platform(CPU)
    measurement = Measurement(
        graph_hash=graph_key(graph).digest,
        platform=CPU.name,
        batch_size=1,
        input_shapes={"x": (1, 3, 32, 32)},
        status="ok",
        stats=LatencyStats.exact(0.25),
        created_at=datetime(2026, 11, 26, tzinfo=UTC),
        node_profile=profile,
    )
    store.add_measurement(measurement)
    return measurement


def _find(store: Store, m: Measurement) -> Measurement | None:
    return store.find_measurement(m.graph_hash, CPU, 1, m.input_shapes)


def test_a_profile_round_trips_through_the_store_and_an_export(databases, tmp_path: Path) -> None:
    store = databases.store()
    stored = _stored(store, PROFILE)
    assert _find(store, stored) == stored
    store.export(tmp_path / "out.jsonl.gz")
    other = databases.store()
    other.import_(tmp_path / "out.jsonl.gz")
    assert _find(other, stored) == stored


def test_a_profile_is_attached_later_and_the_latency_stays(databases) -> None:
    store = databases.store()
    stored = _stored(store)
    assert _find(store, stored).node_profile is None  # type: ignore[union-attr]
    assert store.add_node_profile(stored, PROFILE)
    assert _find(store, stored) == stored.model_copy(update={"node_profile": PROFILE})
    assert store.add_node_profile(stored, None, "profile failed: no kernel")
    found = _find(store, stored)
    assert found is not None and found.node_profile is None
    assert found.node_profile_note == "profile failed: no kernel"
    missing = stored.model_copy(update={"batch_size": 2})
    assert not store.add_node_profile(missing, PROFILE)


def test_an_import_fills_a_missing_profile_and_keeps_everything_else(
    databases, tmp_path: Path
) -> None:
    profiled = databases.store()
    stored = _stored(profiled, PROFILE)
    profiled.export(tmp_path / "profiled.jsonl.gz")
    bare = databases.store()
    _stored(bare)
    report = bare.import_(tmp_path / "profiled.jsonl.gz")
    assert report.measurements_added == 0
    assert _find(bare, stored) == stored


def test_migration_0005_adds_the_profile_columns(databases) -> None:
    store = databases.store()
    with store.engine.begin() as connection:
        command.downgrade(migrations.alembic_config(connection), "0004")
    columns = {c["name"] for c in sa.inspect(store.engine).get_columns("measurements")}
    assert not {"node_profile", "node_profile_note"} & columns
    migrations.upgrade(store.engine)
    columns = {c["name"] for c in sa.inspect(store.engine).get_columns("measurements")}
    assert {"node_profile", "node_profile_note"} <= columns
