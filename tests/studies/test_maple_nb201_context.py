"""NAS-Bench-201's cell operators priced in context: the composition and the networks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from nnlat.measure.descriptor import load_descriptors
from nnlat.studies.maple import compose, load_table
from nnlat.studies.maple_nb201_context import CELL_OPS, context_networks
from nnlat.studies.maple_spaces import NB201, load_context

MAPLE_DATA = Path(__file__).parents[2] / "data" / "maple"


def test_in_context_operators_sum_to_the_network_on_every_pool_device(
    tmp_path: Path, pool_rows: Callable[..., Path]
) -> None:
    # Summed alone, the cell operators of a DRAM-arena device cost up to 3.5 times the
    # network; priced between neighbours, their sum is the network within a few per cent
    # on average, on every device.
    data = load_table(pool_rows(tmp_path, 60))
    descriptors = load_descriptors(MAPLE_DATA / "descriptors.json")
    context = load_context(MAPLE_DATA / NB201.context.name)
    ratios = {}
    for pricing in ("compute", "context"):
        design, traffic = compose(
            NB201.family, data.archs, descriptors, data.devices, pricing, context
        )
        ratios[pricing] = (data.latency_ms.T / design.sum(axis=2)).mean(axis=1)
    assert np.all(np.abs(ratios["context"] - 1) < 0.1)
    assert ratios["compute"].min() < 0.5
    assert not traffic.any()  # in context, nothing is left to move on chip
    with pytest.raises(ValueError, match="in-context latencies"):
        compose(NB201.family, data.archs, descriptors, data.devices, "context", {})


def test_the_in_context_file_covers_every_cell_operator_of_every_stage() -> None:
    context = load_context(MAPLE_DATA / NB201.context.name)
    names = set(context_networks())
    assert len(names) == len(CELL_OPS) * 3
    assert all(set(per_device) == names for per_device in context.values())
    descriptors = load_descriptors(MAPLE_DATA / "descriptors.json")
    assert set(descriptors) <= set(context)


@pytest.mark.slow
def test_an_in_context_network_reads_only_its_own_rows_from_vela(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from nnlat.measure.pool import VELA_POOL, pool_config
    from nnlat.studies.maple_nb201_context import characterise_in_context, context_workloads

    monkeypatch.setenv("NNLAT_VELA_CONFIG", str(pool_config()))
    workloads = {k: v for k, v in context_workloads().items() if k.endswith("_c64")}
    device = next(d for d in VELA_POOL if "u85_512.nnlat_u85_slow_sram" in d)
    found = characterise_in_context(device, workloads)
    stored = load_context(MAPLE_DATA / NB201.context.name)[device]
    assert found == pytest.approx({k: stored[k] for k in found}, rel=1e-6)
    # a 3x3 convolution costs more than a 1x1 one of the same width, in context too
    assert found["conv3x3_c64"] > found["conv1x1_c64"] > 0
