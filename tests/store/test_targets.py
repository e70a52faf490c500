"""Memory, energy and Vela's estimates survive the store, its export/import and migration 0003."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from alembic import command

from nnlat.graph import graph_key, load
from nnlat.measure.types import LatencyStats, Measurement, NpuEstimate, NpuLayer
from nnlat.platform import Platform
from nnlat.store import migrations
from nnlat.testing.tflite_models import handmade_tflite

NPU = Platform(
    hardware="u55_128.ethos_u55_high_end_embedded.shared_sram",
    runtime="vela",
    runtime_version="5.2.0",
    dtype="int8",
    device="npu",
)
LAYER = NpuLayer(
    original_operator="Add",
    operator="Add",
    target="NPU",
    name="out",
    staging_usage_bytes=2048,
    cycles=1536,
    npu_cycles=1536,
    sram_access_cycles=512,
    dram_access_cycles=0,
    on_chip_flash_access_cycles=0,
    off_chip_flash_access_cycles=0,
    macs=0,
)
ESTIMATE = NpuEstimate(
    accelerator="ethos-u55-128",
    system_config="Ethos_U55_High_End_Embedded",
    memory_mode="Shared_Sram",
    config_sha256="ab" * 32,
    core_clock_hz=500e6,
    inference_time_s=3.072e-06,
    cycles_total=1536,
    cycles_npu=1536,
    cycles_sram_access=512,
    cycles_dram_access=0,
    cycles_on_chip_flash_access=0,
    cycles_off_chip_flash_access=64,
    sram_used_bytes=3072,
    dram_used_bytes=0,
    on_chip_flash_used_bytes=0,
    off_chip_flash_used_bytes=1024,
    npu_operators=1,
    cpu_operators=(),
    layers=(LAYER,),
)


def _estimate_measurement(graph_hash: str) -> Measurement:
    return Measurement(
        graph_hash=graph_hash,
        platform=NPU.name,
        batch_size=1,
        input_shapes={"a": (1, 16, 8, 8), "b": (1, 16, 8, 8)},
        status="ok",
        stats=LatencyStats.exact(3.072e-3),
        compile_ms=40.0,
        peak_memory_bytes=3072,
        environment={"memory": "npu_sram_used"},
        created_at=datetime(2026, 11, 25, 12, 0, tzinfo=UTC),
        energy_note="vela estimates no energy",
        deterministic=True,
        npu=ESTIMATE,
    )


def test_estimate_round_trips_through_the_store_and_an_export(databases, tmp_path: Path) -> None:
    store = databases.store()
    graph = load(handmade_tflite("ADD", (1, 8, 8, 16), "int8"))
    store.upsert_model(graph)
    store.upsert_platform(NPU)
    result = _estimate_measurement(graph_key(graph).digest)
    assert store.add_measurement(result)
    found = store.find_measurement(result.graph_hash, NPU, 1, result.input_shapes)
    assert found == result
    assert found is not None and found.npu == ESTIMATE and found.deterministic

    path = tmp_path / "store.jsonl.gz"
    store.export(path)
    other = databases.store()
    other.import_(path)
    assert other.find_measurement(result.graph_hash, NPU, 1, result.input_shapes) == result


def test_an_export_can_leave_out_vela_per_layer_tables(databases, tmp_path: Path) -> None:
    store = databases.store()
    graph = load(handmade_tflite("ADD", (1, 8, 8, 16), "int8"))
    store.upsert_model(graph)
    store.upsert_platform(NPU)
    result = _estimate_measurement(graph_key(graph).digest)
    store.add_measurement(result)

    path = tmp_path / "light.jsonl.gz"
    store.export(path, npu_layers=False)
    other = databases.store()
    other.import_(path)
    found = other.find_measurement(result.graph_hash, NPU, 1, result.input_shapes)
    assert found is not None and found.npu is not None
    assert found.npu.layers == () and found.npu.cycles_total == ESTIMATE.cycles_total
    assert found.model_copy(update={"npu": ESTIMATE}) == result  # nothing else is lost


def test_migration_0003_marks_old_rows_as_timings(databases) -> None:
    store = databases.store()
    with store.engine.begin() as connection:
        command.downgrade(migrations.alembic_config(connection), "0002")
    columns = {c["name"] for c in sa.inspect(store.engine).get_columns("measurements")}
    assert not {"energy_j", "energy_note", "deterministic", "npu"} & columns
    migrations.upgrade(store.engine)
    columns = {c["name"] for c in sa.inspect(store.engine).get_columns("measurements")}
    assert {"energy_j", "energy_note", "deterministic", "npu"} <= columns
