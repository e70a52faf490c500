"""The MAPLE study's pieces: split, encoding, look-up table, report tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nnlat.measure.descriptor import HardwareDescriptor
from nnlat.studies.maple import (
    MapleConfig,
    MapleResult,
    is_test,
    lut_latency_ms,
    op_counts,
    render,
)
from nnlat.studies.results import Results
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
from nnlat.zoo.nasbench201_tflite import CONVERTED_OPS, primitives


def test_the_split_is_900_and_200_and_interleaved() -> None:
    flags = [is_test(p) for p in range(1100)]
    assert sum(flags) == 200
    assert sum(flags[:110]) == 20


def lut_descriptor() -> HardwareDescriptor:
    names = tuple(primitives(arch_config(ALL_CONV3X3)))
    # 1 ms per primitive, so the sum counts primitives
    return HardwareDescriptor("d", names, ("latency_s",), tuple((1e-3,) for _ in names))


def test_the_look_up_table_sums_the_operators_the_converter_keeps() -> None:
    config = arch_config(ALL_CONV3X3)
    # all conv3x3: per cell 6 convs + (1 + 2) adds = 9; 15 cells; + stem, head, 2 reductions
    assert lut_latency_ms(ALL_CONV3X3, lut_descriptor(), config) == 9 * 15 + 4
    # nodes 1 and 2 reach the output through `none` only: dropped, nothing left per cell
    arch = "|skip_connect~0|+|none~0|none~1|+|skip_connect~0|none~1|none~2|"
    assert lut_latency_ms(arch, lut_descriptor(), config) == 4
    # node 1 is a live zero multiply; nodes 2 and 3 add two terms each
    arch = "|none~0|+|skip_connect~0|skip_connect~1|+|skip_connect~0|none~1|skip_connect~2|"
    assert lut_latency_ms(arch, lut_descriptor(), config) == 3 * 15 + 4


def test_op_counts_merge_pools_and_keep_relus_of_mixed_consumers() -> None:
    # node 0 feeds two pools (one AVERAGE_POOL_2D) and a conv (a standalone RELU)
    arch = "|avg_pool_3x3~0|+|nor_conv_1x1~0|none~1|+|avg_pool_3x3~0|skip_connect~1|skip_connect~2|"
    counts = dict(zip(CONVERTED_OPS, op_counts(arch).tolist(), strict=True))
    assert counts["avgpool3x3"] == 1 and counts["conv1x1"] == 1 and counts["relu"] == 1
    assert counts["add"] == 2 and counts["zero"] == 0


def test_render_makes_table_one_with_a_mean_row_and_the_ablation() -> None:
    rows = [
        MapleResult(d, m, k, 0, 100, 20, acc, acc, 0.1, 0.9, 0.0, "10x2")
        for d, acc in (("u55_32.a.b-vela5.2-int8", 0.8), ("u65_256.c.d-vela5.2-int8", 1.0))
        for m in ("maple", "lut", "maple-none")
        for k in (3, 10)
    ]
    config = MapleConfig("", "", ("u55_32.a.b-vela5.2-int8", "u65_256.c.d-vela5.2-int8"))
    text = render(Results(config, rows))
    assert "| **mean** | 0.900 | 0.900 | 0.900 | 0.900 |" in text
    assert "| maple-none | none |" in text
    np.testing.assert_equal("help k=3" in text, False)


def test_saved_rows_are_of_one_snapshot_and_methods_are_described_only_when_run(
    tmp_path: Path,
) -> None:
    import dataclasses

    from nnlat.studies.maple import _method_notes, saved
    from nnlat.studies.results import record_result

    out = tmp_path / "results.jsonl"
    device = "u55_32.a.b-vela5.2-int8"
    old = MapleResult(device, "maple", 3, 0, 70, 15, 0.5, 0.5, 0.2, 0.9, 0, "85x2")
    for row in (old, dataclasses.replace(old, data_key="1100x2", acc_10=0.9)):
        record_result([], row, out)
    config = MapleConfig("", "", ("u55_32.a.b-vela5.2-int8",), out=str(out))
    assert [r.data_key for r in saved(config).rows] == ["1100x2"]  # the largest snapshot
    notes = " ".join(_method_notes(config, {"maple", "help"}))
    assert "`maple` = MAPLE's dual-stream regressor on [one-hot cell" in notes
    assert "`help`" in notes and "`maple-ops`" not in notes and "`nnlp-ft`" not in notes
    kws = dataclasses.replace(config, family="cnn-kws")
    assert "80-number layer encoding" in " ".join(_method_notes(kws, {"maple"}))
