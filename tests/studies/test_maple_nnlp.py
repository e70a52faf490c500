"""NNLP's head fine-tune on the MAPLE pool: folds of source devices, a head per target."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from nnlat.studies.maple import MapleConfig, load_table, run
from nnlat.studies.maple_nnlp import NnlpTransfer, arch_graphs, device_folds

DATA = Path(__file__).parents[2] / "data" / "maple"


@pytest.fixture(scope="module")
def small_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The pool table's first 14 positions (12 training, 2 test), one private cache."""
    folder = tmp_path_factory.mktemp("maple-nnlp")
    table = folder / "pool.csv"
    with (DATA / "nb201_vela_pool.csv").open(newline="") as source:
        rows = list(csv.reader(source))[:15]
    with table.open("w", newline="") as out:
        csv.writer(out).writerows(rows)
    with pytest.MonkeyPatch.context() as patch:  # the graphs are exported once, here
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        yield table


def _one_epoch_study(
    table: Path, devices: tuple[str, ...], methods: tuple[str, ...]
) -> MapleConfig:
    """The study on ``table``: 3 shots, one seed, two folds, one pre-training epoch."""
    return MapleConfig(
        db="",
        descriptors=str(DATA / "descriptors.json"),
        devices=devices,
        methods=methods,
        shots=(3,),
        seeds=1,
        table=str(table),
        nnlp_folds=2,
        nnlp_epochs=1,
    )


def test_every_device_is_left_out_once_in_its_fold() -> None:
    folds = device_folds(16, 4)
    assert sorted(d for fold in folds for d in fold) == list(range(16))
    assert folds[1] == [1, 5, 9, 13]


def test_the_pretrained_network_never_saw_the_targets_fold(small_pool: Path) -> None:
    data = load_table(small_pool)
    graphs = arch_graphs(data.archs)
    assert len({g.graph_hash for g in graphs}) == len(set(data.archs))
    assert arch_graphs(data.archs[:1])[0].graph_hash == graphs[0].graph_hash  # from the cache
    transfer = NnlpTransfer(graphs, data.latency_ms, list(data.devices), folds=8, epochs=1)
    train = np.arange(8)
    pretrained = transfer.pretrained(3, train)
    assert data.devices[3] not in pretrained.platforms
    assert data.devices[11] not in pretrained.platforms  # same fold: 11 % 8 == 3
    assert len(pretrained.platforms) == len(data.devices) - 2
    predicted = transfer.predict(3, train, shots=np.array([0, 1, 2]), test=np.arange(8, 12), seed=0)
    assert predicted.shape == (4,) and np.all(np.isfinite(predicted)) and np.all(predicted > 0)


def test_the_study_scores_nnlp_ft_on_every_device(small_pool: Path) -> None:
    devices = load_table(small_pool).devices
    results = run(_one_epoch_study(small_pool, devices, ("nnlp-ft",))).rows
    assert [r.device for r in results] == list(devices)
    assert all(r.method == "nnlp-ft" and r.test_archs > 0 for r in results)
    assert all(np.isfinite(r.mape) for r in results)


def test_with_a_prior_the_network_learns_the_correction_factor(small_pool: Path) -> None:
    """Given the measured latencies themselves as the prior, every target is 1: what comes
    back is the prior times a factor near 1, on devices 300x apart."""
    data = load_table(small_pool)
    graphs = arch_graphs(data.archs)
    transfer = NnlpTransfer(
        graphs, data.latency_ms, list(data.devices), folds=8, epochs=3, prior_ms=data.latency_ms
    )
    assert transfer._record(5, 2).latency_ms == pytest.approx(1.0)
    train, test = np.arange(8), np.arange(8, 12)
    for target in (0, 15):
        predicted = transfer.predict(target, train, shots=np.array([0, 1, 2]), test=test, seed=0)
        ratio = predicted / data.latency_ms[test, target]
        assert np.all(np.abs(np.log(ratio)) < np.log(1.5)), ratio


def test_the_study_scores_nnlp_lut_traffic(small_pool: Path) -> None:
    devices = load_table(small_pool).devices[:4]
    results = run(_one_epoch_study(small_pool, devices, ("nnlp-lut-traffic", "nnlp-ft"))).rows
    assert {r.method for r in results} == {"nnlp-lut-traffic", "nnlp-ft"}
    assert all(np.isfinite(r.mape) for r in results)
    assert {r.data_key for r in results} == {"14x16"}  # what a rerun resumes by
