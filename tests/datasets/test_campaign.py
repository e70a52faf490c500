"""Dataset campaigns: deterministic, resumable, recording zoo specs, failing cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.datasets import build_dataset
from nnlat.datasets.training import cache_path, graph_of
from nnlat.features.raw import RawFeatures, raw_features
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.runner import reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.platform import UnknownPlatformError
from nnlat.registry import UnknownNameError
from nnlat.store import Store
from nnlat.zoo import get_family
from nnlat.zoo.family import ZooModel

FAST = MeasureSpec(min_runs=3, max_time_s=0.05)
PLATFORMS = ["fake-fake1.0-fp32-t1", "fake-fake1.0-fp16-t1"]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")


def campaign(store: Store, per_family: int, platforms: list[str] = PLATFORMS, **kw):  # type: ignore[no-untyped-def]
    reg = backend_registry({"fake": FakeBackend})
    return build_dataset(
        store, ["squeezenet", "nasbench201"], per_family, platforms, spec=FAST, backends=reg, **kw
    )


@pytest.mark.slow
def test_campaign_measures_every_variant_on_every_platform(store: Store) -> None:
    report = campaign(store, 3)
    assert sum(report.measured.values()) == 2 * 3 * 2 and not report.failed
    for platform in PLATFORMS:
        for family in ("squeezenet", "nasbench201"):
            found = store.list_measurements(platform=platform, family=family)
            assert len({m.graph_hash for m in found}) == 3
    model = store.get_model(found[0].graph_hash)
    assert model is not None and model.zoo_spec is not None and model.onnx_bytes is None
    rebuilt = get_family(model.zoo_spec["family"]).model(model.zoo_spec["config"])
    assert rebuilt.family == "nasbench201"
    assert rebuilt.config_json == json.dumps(model.zoo_spec["config"], sort_keys=True)


@pytest.mark.slow
def test_rerun_skips_done_work_and_extends_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign(store, 2)
    before = {f: set(store.zoo_hashes(f)) for f in ("squeezenet", "nasbench201")}
    exported: list[str] = []
    original = ZooModel.to_graph
    monkeypatch.setattr(
        ZooModel,
        "to_graph",
        lambda self, *a: exported.append(self.config_json) or original(self, *a),
    )
    again = campaign(store, 3)
    assert sum(again.skipped.values()) == 2 * 2 * 2
    assert sum(again.measured.values()) == 2 * 1 * 2
    # Variants done before are recognised from their stored zoo spec without exporting
    # them again: only configurations new to the store were exported.
    new = {c for f, old in before.items() for c in set(store.zoo_hashes(f)) - old}
    assert len(new) == 2 and new <= set(exported)
    assert not set(exported) & (before["squeezenet"] | before["nasbench201"])
    assert len(store.list_measurements(platform=PLATFORMS[0])) == 6


@pytest.mark.slow
def test_same_seed_draws_the_same_variants(tmp_path: Path) -> None:
    a = Store.open(f"sqlite:///{tmp_path / 'a.sqlite'}")
    b = Store.open(f"sqlite:///{tmp_path / 'b.sqlite'}")
    campaign(a, 2, PLATFORMS[:1])
    campaign(b, 2, PLATFORMS[:1])
    assert {m.graph_hash for m in a.list_measurements()} == {
        m.graph_hash for m in b.list_measurements()
    }


def test_failures_are_stored_as_results(store: Store) -> None:
    class Broken(FakeBackend):
        def __init__(self) -> None:
            super().__init__(fail_run="simulated out of memory")

    reg = backend_registry({"fake": Broken})
    report = build_dataset(store, ["squeezenet"], 2, PLATFORMS[:1], spec=FAST, backends=reg)
    assert report.failed["squeezenet", PLATFORMS[0]] == 2
    stored = store.list_measurements(status="failed")
    assert len(stored) == 2 and "out of memory" in (stored[0].error or "")


def test_bad_family_or_platform_fails_before_measuring(store: Store) -> None:
    with pytest.raises(UnknownNameError, match="no-such-family"):
        build_dataset(store, ["no-such-family"], 1, PLATFORMS, spec=FAST)
    with pytest.raises(UnknownPlatformError):
        build_dataset(store, ["squeezenet"], 1, ["mars-ort9.9-fp32-t1"], spec=FAST)
    assert store.stats().measurements == 0


def test_cli_builds_and_resumes(tmp_path: Path) -> None:
    env = {"NNLAT_DB_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    args = ["dataset", "build", "-f", "squeezenet", "-n", "1", "--max-time", "0.05", "--json"]
    first = CliRunner().invoke(app, args, env=env)
    assert first.exit_code == 0, first.output
    rows = json.loads(first.stdout)["results"]
    assert rows == [
        {
            "family": "squeezenet",
            "platform": reference_platform().name,
            "measured": 1,
            "skipped": 0,
            "failed": 0,
            "refused": 0,
        }
    ]
    again = json.loads(CliRunner().invoke(app, args, env=env).stdout)["results"]
    assert (again[0]["measured"], again[0]["skipped"]) == (0, 1)


def test_cli_rejects_unknown_platform(tmp_path: Path) -> None:
    env = {"NNLAT_DB_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    result = CliRunner().invoke(
        app, ["dataset", "build", "-f", "squeezenet", "-p", "mars-ort9.9-fp32-t1"], env=env
    )
    assert result.exit_code == 2 and "mars-ort9.9-fp32-t1" in result.output


@pytest.mark.slow
def test_tflite_campaign_keeps_the_format_not_the_file(store: Store) -> None:
    """A TFLite zoo family measures on Vela; the store keeps its recipe, not 10 MB files."""
    pytest.importorskip("tensorflow")
    pytest.importorskip("ethosu.vela")
    from nnlat.measure.backends.vela import VelaBackend

    npu = VelaBackend().platforms()[0].name
    report = build_dataset(store, ["cnn-kws"], 2, [npu])
    assert report.rows()[0]["measured"] == 2 and report.rows()[0]["failed"] == 0
    models = store.list_models(family="cnn-kws")
    assert [m.source_format for m in models] == ["tflite", "tflite"]
    assert all(store.get_model(m.graph_hash).source_bytes is None for m in models)
    rerun = build_dataset(store, ["cnn-kws"], 2, [npu])
    assert rerun.rows()[0]["skipped"] == 2


def test_a_campaign_can_cache_the_features_training_would_rebuild(
    store: Store, tmp_path: Path
) -> None:
    cache = tmp_path / "features"
    campaign(store, 1, PLATFORMS[:1], feature_cache=cache)
    measurements = store.list_measurements(platform=PLATFORMS[0])
    assert len(measurements) == 2
    for m in measurements:
        shapes = dict(m.input_shapes)
        with np.load(cache_path(cache, m.graph_hash, shapes)) as arrays:
            cached = RawFeatures.from_arrays(dict(arrays))
        model = store.get_model(m.graph_hash)
        assert model is not None
        rebuilt = raw_features(graph_of(model, shapes)).to_arrays()
        assert cached.to_arrays().keys() == rebuilt.keys()
        for key, value in rebuilt.items():
            np.testing.assert_array_equal(cached.to_arrays()[key], value)


def test_a_campaign_at_several_batch_sizes_stores_each_as_a_query_would(
    store: Store, tmp_path: Path
) -> None:
    report = campaign(store, 2, PLATFORMS[:1], batch_sizes=(1, 4), feature_cache=tmp_path)
    assert sum(report.measured.values()) == 2 * 2 * 2 and not report.failed
    again = campaign(store, 2, PLATFORMS[:1], batch_sizes=(1, 4), feature_cache=tmp_path)
    assert sum(again.measured.values()) == 0 and sum(again.skipped.values()) == 8
    batches = {}
    for m in store.list_measurements(platform=PLATFORMS[0]):
        batches.setdefault(m.batch_size, []).append(m)
        assert all(shape[0] == m.batch_size for shape in m.input_shapes.values())
        model = store.get_model(m.graph_hash)  # the graph at that batch size is stored
        assert model is not None and model.family in ("squeezenet", "nasbench201")
        rebuilt = raw_features(graph_of(model, dict(m.input_shapes)))
        with np.load(cache_path(tmp_path, m.graph_hash, dict(m.input_shapes))) as arrays:
            cached = RawFeatures.from_arrays(dict(arrays))
        np.testing.assert_array_equal(cached.graph_values, rebuilt.graph_values)
    assert sorted(batches) == [1, 4] and len(batches[4]) == 4
    one, four = (sorted(m.graph_hash for m in batches[b]) for b in (1, 4))
    assert not set(one) & set(four)  # another batch size is another graph hash


def test_batch_sizes_below_one_are_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        campaign(store, 1, batch_sizes=(0,))


def test_a_variant_that_hard_codes_batch_1_is_refused_at_another_not_fatal(store: Store) -> None:
    reg = backend_registry({"fake": FakeBackend})
    report = build_dataset(
        store, ["vit"], 1, PLATFORMS[:1], spec=FAST, backends=reg, batch_sizes=(1, 2)
    )
    [row] = report.rows()
    assert (row["measured"], row["refused"], row["failed"]) == (1, 1, 0)
