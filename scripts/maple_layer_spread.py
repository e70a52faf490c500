"""Why a memory-bound pool NPU stays hard for MAPLE: Vela's per-layer table, operator by operator.

For the first ``--archs`` *training* architectures of data/maple/nb201_vela_pool.csv (no
test one is read), each network is exported to int8 TFLite and estimated by Vela on the
named devices; every layer of Vela's per-layer table is grouped by (TFLite operator,
channels of its output), and the group's cycles are set against the primitive's cycles in
the device's descriptor (what ``maple-ops``/``maple-lut`` compose). Per group: layers,
mean / min / max cycles, the ratio of the mean to the primitive, and which term bounds
the layers (NPU compute, SRAM, DRAM or flash access, as Vela's Op Cycles = their maximum).
The spread of one operator's cycles across architectures is what a sum of per-operator
costs cannot follow.

    nice -n 10 taskset -c 0 env PYTHONPATH=src OMP_NUM_THREADS=1 \\
        python scripts/maple_layer_spread.py --archs 6 > reports/maple/layer_spread.md
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from nnlat.measure.backends.vela import VelaBackend, estimate
from nnlat.measure.descriptor import HardwareDescriptor, load_descriptors
from nnlat.measure.pool import pool_config
from nnlat.measure.types import NpuLayer
from nnlat.studies.maple import is_test, load_table, short_name
from nnlat.zoo.nasbench201 import arch_config
from nnlat.zoo.nasbench201_tflite import export

DEVICES = (
    "u85_512.nnlat_u85_slow_sram.dedicated_sram-vela5.2-int8",
    "u85_1024.ethos_u85_sys_dram_mid.dedicated_sram-vela5.2-int8",
)
# Vela's operator → the descriptor's primitive of the same kind (convolutions: by MACs)
PRIMITIVE = {"AvgPool": "avgpool3x3", "Add": "add", "Mul": "zero", "Relu": "zero"}
TERMS = ("npu_cycles", "sram_access_cycles", "dram_access_cycles", "off_chip_flash_access_cycles")


def main() -> None:
    """Export, estimate, group and print the per-layer tables as Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archs", type=int, default=6, help="training architectures to read")
    args = parser.parse_args()
    os.environ.setdefault("NNLAT_VELA_CONFIG", str(pool_config()))
    data = load_table(Path("data/maple/nb201_vela_pool.csv"))
    descriptors = load_descriptors(Path("data/maple/descriptors.json"))
    positions = [p for p in data.complete() if not is_test(int(p))][: args.archs]
    backend = VelaBackend()
    models = [_with_shapes(export(arch_config(data.archs[p]))) for p in positions]
    print(f"Training positions {[int(p) for p in positions]}; per-layer table by Vela 5.2.\n")
    for device in DEVICES:
        target, descriptor = backend.target(device), descriptors[device]
        groups: dict[tuple[str, int], list] = defaultdict(list)
        totals = []
        for tflite, shapes in models:
            result = estimate(tflite, target)
            totals.append(result.cycles_total)
            for layer in result.layers:
                shape = shapes.get(layer.name, (0,))
                groups[(_kind(layer, shape), int(shape[-1]))].append(layer)
        measured = [data.latency_ms[p, data.devices.index(device)] for p in positions]
        print(f"## {short_name(device)}\n")
        print(f"Network cycles {totals}; campaign latency (ms) {[round(m, 3) for m in measured]}\n")
        print(
            "| operator | layers | mean cycles | min | max | primitive | mean / primitive | bound |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for (kind, channels), layers in sorted(groups.items()):
            cycles = [layer.cycles for layer in layers]
            bound = Counter(max(TERMS, key=lambda t: getattr(layer, t)) for layer in layers)
            primitive = _primitive_cycles(descriptor, kind, channels)
            ratio = f"{statistics.fmean(cycles) / primitive:.2f}" if primitive else "–"
            bound_by = ", ".join(f"{t.split('_')[0]} {n}" for t, n in bound.most_common())
            print(
                f"| {kind} c{channels} | {len(layers)} | {statistics.fmean(cycles):.0f} | "
                f"{min(cycles)} | {max(cycles)} | {primitive or '–'} | {ratio} | {bound_by} |"
            )
        print()


def _with_shapes(tflite: bytes) -> tuple[bytes, dict[str, tuple[int, ...]]]:
    """The model and its tensors' shapes by name (Vela names a layer by its output tensor)."""
    import tensorflow as tf

    details = tf.lite.Interpreter(model_content=tflite).get_tensor_details()
    return tflite, {d["name"]: tuple(int(v) for v in d["shape"]) for d in details}


def _kind(layer: NpuLayer, shape: tuple[int, ...]) -> str:
    """The primitive a layer is, or its operator; a row Vela lists with no cycles is fused."""
    if layer.cycles == 0:
        return f"{layer.original_operator} (fused, 0 cycles)"
    if layer.original_operator == "Conv2D" and len(shape) == 4:
        kernel_area = layer.macs / (shape[1] * shape[2] * shape[3] * shape[3])
        return {1: "conv1x1", 9: "conv3x3"}.get(round(kernel_area), "Conv2D")
    return PRIMITIVE.get(layer.original_operator, layer.original_operator)


def _primitive_cycles(descriptor: HardwareDescriptor, kind: str, channels: int) -> int:
    name = f"{kind}_c{channels}"
    return int(descriptor.counter(name, "cycles_total")) if name in descriptor.workloads else 0


if __name__ == "__main__":
    main()
