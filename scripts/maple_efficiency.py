"""How much of each primitive's alone-cost survives in a network, per pool device and pricing.

``maple-ops`` carries a pool device's per-operator *efficiency* (least-squares weights of
latency on the architecture's priced operators, ``nnlat.predictor.maple.OpCostTransfer``)
to a new device. This prints those efficiencies, fitted on the 700 fit architectures of
the validation split (no validation or test architecture is read), under each pricing of
``nnlat.studies.maple_traffic``, and the median ratio of the priced sum to the measured
latency. Operators: conv1x1, conv3x3, avgpool3x3, add, zero, relu, zero_output, fixed.
Last, the largest peak live activation bytes of any architecture against each DRAM-arena
device's SRAM cache (where ``placement`` would differ from ``on_chip``).

    nice -n 10 taskset -c 0 env PYTHONPATH=src OMP_NUM_THREADS=1 python scripts/maple_efficiency.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nnlat.measure.descriptor import load_descriptors
from nnlat.predictor.maple import OpCostTransfer, priced
from nnlat.studies.maple import is_test, is_validation, load_table, op_counts, short_name
from nnlat.studies.maple_traffic import arch_traffic, memory_spec, price
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config

data = load_table(Path("data/maple/nb201_vela_pool.csv"))
descriptors = load_descriptors(Path("data/maple/descriptors.json"))
fit = [p for p in data.complete() if not is_test(int(p)) and not is_validation(int(p))]
archs = [data.archs[p] for p in fit]
counts = np.stack([op_counts(a) for a in archs])
latency = data.latency_ms[fit]
for pricing in ("compute", "on_chip"):
    costs = price(archs, descriptors, data.devices, pricing, arch_config(ALL_CONV3X3)).costs
    design = priced(counts, costs)
    efficiency = OpCostTransfer().fit(design, latency).efficiency_
    print(f"\n{pricing}: efficiency per operator | median priced sum / measured")
    for d, device in enumerate(data.devices):
        ratio = np.median(design[d].sum(axis=1) / latency[:, d])
        cells = " ".join(f"{e:5.2f}" for e in efficiency[d])
        print(f"{short_name(device)[:44]:44s} {cells} | {ratio:.2f}")
skeleton = arch_config(ALL_CONV3X3)
peak = max(arch_traffic(a, skeleton).peak_live_bytes for a in data.archs if a)
print(
    f"\nlargest peak live activations over all {len(data.complete())} architectures: {peak:.0f} B"
)
for device in data.devices:
    memory = memory_spec(descriptors[device])
    if memory.arena != "sram":
        print(f"{short_name(device)[:44]:44s} SRAM cache {memory.sram_bytes:.0f} B")
