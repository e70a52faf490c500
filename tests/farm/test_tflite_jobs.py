"""A worker measures a stored TFLite model from its stored file: Vela in-process, and a real
farm (``nnlat serve`` + ``nnlat worker`` over RabbitMQ) on a Vela platform."""

from __future__ import annotations

import importlib.metadata
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from farm_helpers import BROKERS, Farm

from nnlat.client import Client
from nnlat.farm import execute_job
from nnlat.graph import graph_key, load
from nnlat.measure.runner import measure
from nnlat.measure.types import MeasureSpec
from nnlat.store import Store
from nnlat.testing.tflite_models import handmade_tflite

pytest.importorskip("ethosu.vela")
VELA = ".".join(importlib.metadata.version("ethos-u-vela").split(".")[:2])
NPU = f"u55_128.ethos_u55_high_end_embedded.shared_sram-vela{VELA}-int8"
INT8_ADD = handmade_tflite("ADD", (1, 8, 8, 16), "int8")


def test_a_stored_tflite_job_is_measured_from_its_file() -> None:
    store = Store.open("sqlite://")
    graph = load(INT8_ADD)
    store.upsert_model(graph)
    shapes = {s.name: tuple(s.shape) for s in graph.inputs}
    job, _ = store.jobs.open(graph_key(graph).digest, NPU, 1, shapes)
    done = execute_job(store, job.id, MeasureSpec(), "w1")
    assert (done.state, done.measurement_status) == ("done", "ok"), done.error
    [stored] = store.list_measurements(status=None)
    local = measure(graph, NPU)
    assert stored.npu == local.npu and stored.stats == local.stats


def test_a_stored_tflite_job_runs_its_file_on_litert() -> None:
    from nnlat.measure.backends.litert import LiteRtBackend

    platform = LiteRtBackend().platform(1, "int8").name
    store = Store.open("sqlite://")
    graph = load(INT8_ADD)
    store.upsert_model(graph)
    shapes = {s.name: tuple(s.shape) for s in graph.inputs}
    job, _ = store.jobs.open(graph_key(graph).digest, platform, 1, shapes)
    done = execute_job(store, job.id, MeasureSpec(max_time_s=0.2), "w1")
    assert (done.state, done.measurement_status) == ("done", "ok"), done.error
    [stored] = store.list_measurements(status=None)
    assert stored.platform == platform and stored.stats.median_ms > 0


def test_a_float_tflite_job_stores_velas_cpu_fallback() -> None:
    store = Store.open("sqlite://")
    graph = load(handmade_tflite("ADD", (1, 8, 8, 16)))
    store.upsert_model(graph)
    shapes = {s.name: tuple(s.shape) for s in graph.inputs}
    job, _ = store.jobs.open(graph_key(graph).digest, NPU, 1, shapes)
    done = execute_job(store, job.id, MeasureSpec(), "w1")
    assert (done.state, done.measurement_status) == ("done", "unsupported")
    [stored] = store.list_measurements(status=None)
    assert "fall back to the CPU" in (stored.error or "")


@pytest.fixture
def farm(tmp_path: Path, databases) -> Iterator[Farm]:
    farm = Farm(tmp_path, databases.url(), BROKERS["rabbitmq"])
    farm.platform = NPU  # the worker serves the Vela platform
    yield farm
    farm.stop_all()


@pytest.mark.services
@pytest.mark.slow
@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_a_real_farm_measures_an_uploaded_tflite_on_vela(farm: Farm, tmp_path: Path) -> None:
    path = tmp_path / "add8.tflite"
    path.write_bytes(INT8_ADD)
    with Store.open(farm.db_url) as store:
        token = store.tokens.create(f"t{time.monotonic_ns()}")
    with Client(farm.start_server(), token) as client:
        farm.start_worker("w1")
        first = client.query(path, NPU, timeout_s=120)
        assert not first.cached and first.measurement.status == "ok", first.measurement.error
        assert first.measurement.npu == measure(load(INT8_ADD), NPU).npu
        assert client.query(path, NPU).cached
    with Store.open(farm.db_url) as store:
        stored = store.get_model(first.measurement.graph_hash)
        assert stored is not None and stored.source_bytes == INT8_ADD
