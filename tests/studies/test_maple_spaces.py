"""The search spaces of the MAPLE study: encodings and the table's architecture strings."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from nnlat.measure.descriptor import HardwareDescriptor, load_descriptors
from nnlat.studies.maple import MapleConfig, PoolData, load_table, run
from nnlat.studies.maple_spaces import (
    SPACES,
    compose_kws,
    encode_kws,
    encode_nb201,
    kws_arch,
    load_context,
    space_of,
)
from nnlat.zoo.edge.cnn_kws import KwsConfig, Layer, sample

MAPLE_DATA = Path(__file__).parents[2] / "data" / "maple"


def test_the_nb201_encoding_is_one_hot_per_edge() -> None:
    code = encode_nb201(
        "|none~0|+|skip_connect~0|nor_conv_1x1~1|+|avg_pool_3x3~0|none~1|nor_conv_3x3~2|"
    )
    assert code.shape == (30,) and code.sum() == 6
    assert code.reshape(6, 5).argmax(1).tolist() == [0, 1, 2, 4, 0, 3]


def test_a_keyword_spotter_round_trips_through_its_table_string() -> None:
    config = sample(random.Random(3))
    arch = kws_arch(config.to_config())
    assert KwsConfig.from_config(SPACES["cnn-kws"].config(arch)) == config
    assert arch == kws_arch(json.loads(arch))  # canonical: one string per recipe


def test_the_kws_encoding_places_each_layer_in_its_slot() -> None:
    config = KwsConfig(49, 10, 12, 512, (10, 4), (Layer(32, (7, 1)), Layer(128, (1, 5))))
    code = encode_kws(kws_arch(config.to_config()))
    first, slots = code[:8], code[8:].reshape(8, 9)
    assert first.tolist() == [0, 0, 0, 1, 0, 0, 1, 1.0]  # time 10, frequency 4, widest
    assert slots[:, 0].tolist() == [1, 1, 0, 0, 0, 0, 0, 0]  # two layers present
    assert slots[0, 1] == 0.0 and slots[1, 1] == pytest.approx(0.5)  # 32 and 128 channels
    assert slots[0, 2:].tolist() == [0, 0, 0, 1, 1, 0, 0]  # depthwise 7 × 1
    assert not slots[2:].any()


def test_distinct_keyword_spotters_encode_differently() -> None:
    rng = random.Random(0)
    archs = {kws_arch(sample(rng).to_config()) for _ in range(200)}
    codes = {encode_kws(a).tobytes() for a in archs}
    assert len(codes) == len(archs)
    assert all(np.isfinite(np.frombuffer(c)).all() for c in codes)


def test_an_unknown_space_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="nasbench201-int8, cnn-kws"):
        space_of("cnn-imagenet")


def test_every_method_runs_on_the_keyword_spotting_pool_but_traffic_pricing_is_refused(
    tmp_path: Path,
    pool_rows: Callable[..., Path],
    small_study: Callable[..., MapleConfig],
) -> None:
    table = pool_rows(tmp_path, 22, "kws_vela_pool.csv")  # 18 training, 4 test
    devices = load_table(table, "cnn-kws").devices
    methods = ("maple", "help", "lut", "lut-scaled", "maple-ops", "maple-lut", "maple-ops@split")
    results = run(small_study(table, devices, methods, steps=5, family="cnn-kws")).rows
    assert len(results) == len(devices) * len(methods) == 112
    assert all(r.test_archs == 4 and np.isfinite(r.mape) for r in results)
    with pytest.raises(ValueError, match="cnn-kws composes with compute, split"):
        run(small_study(table, devices, ("maple-lut-traffic",), family="cnn-kws"))


def kws_rows(
    folder: Path, pool_rows: Callable[..., Path], rows: int, device: str
) -> tuple[PoolData, int, dict[str, HardwareDescriptor]]:
    """The first ``rows`` spotters of the pool table, ``device``'s column, the descriptors."""
    data = load_table(pool_rows(folder, rows, "kws_vela_pool.csv"), "cnn-kws")
    descriptors = load_descriptors(MAPLE_DATA / "kws_descriptors.json")
    return data, data.devices.index(f"{device}-vela5.2-int8"), descriptors


def test_a_spotter_is_the_sum_of_its_primitives_on_a_device_that_keeps_its_arena_on_chip(
    tmp_path: Path, pool_rows: Callable[..., Path]
) -> None:
    # On u55_32 (shared SRAM) Vela's estimate of a whole spotter is 0.95-0.98 times the sum
    # of its layers estimated alone: the composition is right if the scaled sum is close.
    data, device, descriptors = kws_rows(
        tmp_path, pool_rows, 60, "u55_32.ethos_u55_deep_embedded.shared_sram"
    )
    lut = compose_kws(data.archs, descriptors, data.devices).sum(axis=2)[device]
    ratio = data.latency_ms[:, device] / lut
    assert np.all(np.abs(ratio / np.median(ratio) - 1) < 0.05)
    shuffled = np.roll(lut, 1)  # a composition of the wrong architectures is far off
    assert np.mean(np.abs(data.latency_ms[:, device] / shuffled / np.median(ratio) - 1) > 0.1) > 0.5


def test_split_pricing_parts_each_kind_into_on_and_off_chip_time(
    tmp_path: Path, pool_rows: Callable[..., Path]
) -> None:
    data = load_table(pool_rows(tmp_path, 11, "kws_vela_pool.csv"), "cnn-kws")
    descriptors = load_descriptors(MAPLE_DATA / "kws_descriptors.json")
    whole = compose_kws(data.archs, descriptors, data.devices)
    split = compose_kws(data.archs, descriptors, data.devices, "split")
    assert np.allclose(split.reshape(*whole.shape, 2).sum(axis=3), whole)
    off_chip = split[..., 1::2].sum(axis=2) / whole.sum(axis=2)  # (devices, archs)
    dram_arena = np.array(["dedicated_sram" in d for d in data.devices])
    # where the arena lives in DRAM a layer alone spends more of its time off chip
    assert off_chip[dram_arena].mean() > off_chip[~dram_arena].mean()


def test_in_context_primitives_compose_a_spotter_where_its_arena_is_in_dram(
    tmp_path: Path, pool_rows: Callable[..., Path]
) -> None:
    # Alone, a layer on u65_256 (dedicated SRAM: the arena in DRAM) costs 2-4 times what
    # it does inside a spotter; priced between two neighbours, the sum is the spotter.
    data, device, descriptors = kws_rows(
        tmp_path, pool_rows, 60, "u65_256.ethos_u65_mid_end.dedicated_sram"
    )
    context = load_context(MAPLE_DATA / "kws_context.json")
    measured = data.latency_ms[:, device]
    alone = compose_kws(data.archs, descriptors, data.devices).sum(axis=2)[device]
    inside = compose_kws(data.archs, descriptors, data.devices, "context", context)
    assert np.all(np.abs(inside.sum(axis=2)[device] / measured - 1) < 0.05)
    assert np.median(measured / alone) < 0.5
    with pytest.raises(ValueError, match="in-context latencies"):
        compose_kws(data.archs, descriptors, data.devices, "context", {})
