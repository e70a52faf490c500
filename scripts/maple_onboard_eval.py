"""Onboarding check: after `nnlat onboard --shots K` on an NPU outside the pool, MAPE on
real int8 TFLite architectures outside the NAS-Bench-201 space, against Vela's own estimate.

For each device of ``nnlat.measure.pool.VELA_HELD_OUT`` (and, for reference, three pool
devices): onboard with K shots (``nnlat.predictor.onboard.onboard``, saved to a temporary
folder), then predict every evaluation model — EdgeDLPerf-space networks (cnn-kws,
cnn-cifar10, vit-cifar100, cnn-imagenet) at seeds apart from the shots', written by the
direct int8 writer — and compare with Vela's estimate on the device. Writes
reports/maple/onboarding.md and prints it.

    NNLAT_VELA_CONFIG=src/nnlat/measure/vela_pool.ini PYTHONPATH=src \
        nice -n 10 taskset -c 0 python scripts/maple_onboard_eval.py [--shots 3] [--per-space 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from nnlat.measure.pool import VELA_HELD_OUT, VELA_POOL
from nnlat.predictor.onboard import onboard, vela_estimator
from nnlat.studies.maple import short_name
from nnlat.zoo import get_family

SPACES = ("cnn-kws", "cnn-cifar10", "vit-cifar100", "cnn-imagenet")
SEED_BASE = 910_000  # apart from the shots' seeds (900_001 …)
REFERENCE = (VELA_POOL[0], VELA_POOL[6], VELA_POOL[14])

parser = argparse.ArgumentParser()
parser.add_argument("--shots", type=int, default=3)
parser.add_argument("--per-space", type=int, default=5)
parser.add_argument("--out", default="reports/maple/onboarding.md")
args = parser.parse_args()

start = time.perf_counter()
models = []
for space in SPACES:
    spec = get_family(space)
    for i in range(args.per_space if space != "cnn-imagenet" else max(1, args.per_space // 2)):
        model = spec.model(spec.sample(random.Random(SEED_BASE + i)))
        models.append((f"{space}:{SEED_BASE + i}", model.to_tflite(converter="direct")))
lines = [
    "# Onboarding an NPU outside the pool from K measurements (issue 31)",
    "",
    f"Made by `python scripts/maple_onboard_eval.py --shots {args.shots} "
    f"--per-space {args.per_space}` (NNLAT_VELA_CONFIG = the pool's vela_pool.ini).",
    "",
    f"Evaluation models: {len(models)} int8 TFLite networks of the EdgeDLPerf-like spaces "
    f"({', '.join(SPACES)}; seeds from {SEED_BASE}), none in NAS-Bench-201 and none among "
    "the shots. Truth: Vela's estimate on the device. Predictor: `nnlat onboard` "
    "(descriptor rates × roofline, scaled by the median ratio of the K shots).",
    "",
    "| device | held out | scale | MAPE | median APE | max APE | within 15 % |",
    "|---|---|---|---|---|---|---|",
]
per_space: dict[str, list[float]] = {s: [] for s in SPACES}
held_mape = []
with tempfile.TemporaryDirectory() as folder:
    for device in (*VELA_HELD_OUT, *REFERENCE):
        result = onboard(device, args.shots, folder=Path(folder))
        measure = vela_estimator(device)
        errors = []
        for name, tflite in models:
            error = abs(result.predict_ms(tflite) / measure(tflite) - 1)
            errors.append(error)
            if device in VELA_HELD_OUT:
                per_space[name.split(":")[0]].append(error)
        mape = statistics.fmean(errors)
        if device in VELA_HELD_OUT:
            held_mape.append(mape)
        lines.append(
            f"| {short_name(device)} | {'yes' if device in VELA_HELD_OUT else 'no (pool)'} | "
            f"{result.scale:.2f} | {mape:.1%} | {statistics.median(errors):.1%} | "
            f"{max(errors):.1%} | {sum(e <= 0.15 for e in errors) / len(errors):.2f} |"
        )
        print(lines[-1], flush=True)
lines += [
    "",
    f"Mean MAPE over the held-out devices: **{statistics.fmean(held_mape):.1%}** "
    f"(target ≤ 15 %). Per space, held-out devices: "
    + ", ".join(f"{s} {statistics.fmean(e):.1%}" for s, e in per_space.items() if e)
    + ".",
    "",
    f"Wall time: {time.perf_counter() - start:.0f} s.",
]
Path(args.out).write_text("\n".join(lines) + "\n")
print("\n".join(lines[-4:]))
