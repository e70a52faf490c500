"""The dataset in data/ imports with one command and holds what data/README.md says."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from nnlat.store import Store
from nnlat.zoo.registry import NNLQP_FAMILIES

DATASET = Path(__file__).parents[2] / "data" / "nnlqp10-xeon.jsonl.gz"


@pytest.mark.slow
def test_nnlqp10_dataset_imports_whole(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    report = store.import_(DATASET)
    assert (report.models_added, report.measurements_added) == (2000, 4000)
    per_cell = Counter()
    for platform in ("xeon-ort1.31-fp32-t1", "xeon-openvino2026.4-fp32-t1"):
        for family in NNLQP_FAMILIES:
            found = store.list_measurements(platform=platform, family=family)
            per_cell[family, platform] = len({m.graph_hash for m in found})
    assert set(per_cell.values()) == {200}, per_cell
    model = store.get_model(found[0].graph_hash)
    assert model is not None and model.zoo_spec is not None


@pytest.mark.slow
def test_epyc_dataset_shares_graphs_with_the_xeon_one(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    report = store.import_(DATASET.with_name("epyc-ort.jsonl.gz"))
    assert (report.models_added, report.measurements_added) == (1319, 1319)
    expected = {f: 40 for f in NNLQP_FAMILIES} | {"vit": 100, "randdag": 100, "fbnet": 100}
    expected |= {"seqnet": 150, "segnet": 150, "tinynet": 300}
    for family, count in expected.items():
        found = store.list_measurements(platform="epyc-ort1.31-fp32-t1", family=family)
        assert len(found) == count, family
    # The NNLQP variants are the first 40 of each family's seed-0 draw: graphs the Xeon
    # dataset also measured, which the unseen-platform transfer study relies on.
    epyc = {m.graph_hash for m in store.list_measurements(family="resnet")}
    store.import_(DATASET)
    xeon = {m.graph_hash for m in store.list_measurements(platform="xeon-ort1.31-fp32-t1")}
    assert epyc <= xeon
