"""NNLP's head fine-tune on the MAPLE pool: folds of source devices, a head per target."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from nnlat.studies.maple import MapleConfig, load_table, run
from nnlat.studies.maple_nnlp import NnlpTransfer, arch_graphs, device_folds

# Two folds, one pre-training epoch: the study's path, not its accuracy.
ONE_EPOCH = {"nnlp_folds": 2, "nnlp_epochs": 1}


@pytest.fixture(scope="module")
def small_pool(
    tmp_path_factory: pytest.TempPathFactory, pool_rows: Callable[[Path, int], Path]
) -> Iterator[Path]:
    """The pool table's first 14 positions (12 training, 2 test), one private cache."""
    folder = tmp_path_factory.mktemp("maple-nnlp")
    table = pool_rows(folder, 14)
    with pytest.MonkeyPatch.context() as patch:  # the graphs are exported once, here
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        yield table


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


def test_the_study_scores_nnlp_ft_on_every_device(
    small_pool: Path, small_study: Callable[..., MapleConfig]
) -> None:
    devices = load_table(small_pool).devices
    results = run(small_study(small_pool, devices, ("nnlp-ft",), **ONE_EPOCH)).rows
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


def test_the_study_scores_nnlp_lut_traffic(
    small_pool: Path, small_study: Callable[..., MapleConfig]
) -> None:
    devices = load_table(small_pool).devices[:4]
    results = run(
        small_study(small_pool, devices, ("nnlp-lut-traffic", "nnlp-ft"), **ONE_EPOCH)
    ).rows
    assert {r.method for r in results} == {"nnlp-lut-traffic", "nnlp-ft"}
    assert all(np.isfinite(r.mape) for r in results)
    assert {r.data_key for r in results} == {"14x16"}  # what a rerun resumes by
