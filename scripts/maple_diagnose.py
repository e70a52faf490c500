"""Why the first MAPLE numbers were low: how far the look-up-table sums are from Vela, and
how linear Vela's latency is in the converted operators (reports/maple/findings.md).

For each pool device of data/maple/nb201_vela_pool.csv: the spread of log(measured / LUT
sum) over the architectures for the first LUT (every edge summed as written) and the
converter-aware one (``nnlat.studies.maple.lut_latency_ms``); and the supervised ceiling
of a per-device linear model on the converted-operator counts (least squares on the
training rows, Acc(10 %) on the test rows).

    PYTHONPATH=src python scripts/maple_diagnose.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nnlat.measure.descriptor import load_descriptors
from nnlat.studies.maple import is_test, load_table, lut_latency_ms, op_counts, short_name
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config, parse_arch

data = load_table(Path("data/maple/nb201_vela_pool.csv"))
descriptors = load_descriptors(Path("data/maple/descriptors.json"))
config = arch_config(ALL_CONV3X3)
rows = data.complete()
test = np.array([is_test(int(p)) for p in rows])
names = {"nor_conv_1x1": "conv1x1", "nor_conv_3x3": "conv3x3", "avg_pool_3x3": "avgpool3x3"}


def edge_lut(arch: str, device: str) -> float:
    """The first LUT: every edge as written, one add per extra term, a zero per empty node."""
    from nnlat.zoo.nasbench201_tflite import stage_sizes

    d = descriptors[device]

    def lat(name: str) -> float:
        return d.counter(name, "latency_s") * 1e3

    total = lat("stem") + lat("head")
    for stage, (c, _) in enumerate(stage_sizes(config)):
        total += lat(f"reduction_c{c}") if stage else 0.0
        for edges in parse_arch(arch):
            terms = [op for op, _ in edges if op != "none"]
            cell = sum(lat(f"{names[op]}_c{c}") for op in terms if op in names)
            cell += lat(f"add_c{c}") * max(len(terms) - 1, 0) + (0 if terms else lat(f"zero_c{c}"))
            total += cell * config["cells_per_stage"]
    return total


counts = np.stack([op_counts(data.archs[p]) for p in rows])
design = np.concatenate([counts, np.ones((len(rows), 1))], axis=1)
print(f"{len(rows)} architectures ({(~test).sum()} train, {test.sum()} test)")
print("| device | std log(meas/LUT) edges | std log(meas/LUT) converted | linear Acc(10 %) |")
print("|---|---|---|---|")
for j, device in enumerate(data.devices):
    y = data.latency_ms[rows, j]
    first = np.array([edge_lut(data.archs[p], device) for p in rows])
    fixed = np.array([lut_latency_ms(data.archs[p], descriptors[device], config) for p in rows])
    beta = np.linalg.lstsq(design[~test], y[~test], rcond=None)[0]
    acc = np.mean(np.abs(design[test] @ beta / y[test] - 1) <= 0.1)
    print(
        f"| {short_name(device)} | {np.log(y / first).std():.3f} | "
        f"{np.log(y / fixed).std():.3f} | {acc:.3f} |"
    )
