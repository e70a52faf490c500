"""Onboarding check: after `nnlat onboard --shots K` on an NPU outside the pool, MAPE on
real int8 TFLite architectures outside the NAS-Bench-201 space, against Vela's own estimate.

For each device of ``nnlat.measure.pool.VELA_HELD_OUT`` (and, for reference, three pool
devices): onboard with K shots (``nnlat.predictor.onboard.onboard``, saved to a temporary
folder), then predict every model of each evaluation set — EdgeDLPerf-space networks
(cnn-kws, cnn-cifar10, vit-cifar100, cnn-imagenet) at seeds apart from the shots', written
by the direct int8 writer — and compare with Vela's estimate on the device. Each set is
``NAME SEED_BASE PER_SPACE``: seeds ``SEED_BASE …`` in every space, ``PER_SPACE`` models
per space (cnn-imagenet, the slow one to estimate: half). ``--tflite NAME DIR`` adds a
set of given files instead: every ``*.tflite`` in DIR (for example the Keras applications
that ``scripts/perfsage_real_archs.py measure`` exports). Writes ``--out``
(reports/maple/onboarding.md) and prints it.

    NNLAT_VELA_CONFIG=src/nnlat/measure/vela_pool.ini PYTHONPATH=src \
        nice -n 10 taskset -c 0 python scripts/maple_onboard_eval.py [--shots 3] \
        [--set development 910000 3] [--set evaluation 920000 4] [--tflite NAME DIR] \
        [--no-reference] [--out FILE]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from nnlat.measure.pool import VELA_HELD_OUT, VELA_POOL
from nnlat.predictor.onboard import ONBOARD_VERSION, onboard, vela_estimator
from nnlat.studies.maple import short_name
from nnlat.zoo import get_family

SPACES = ("cnn-kws", "cnn-cifar10", "vit-cifar100", "cnn-imagenet")
REFERENCE = (VELA_POOL[0], VELA_POOL[6], VELA_POOL[14])

parser = argparse.ArgumentParser()
parser.add_argument("--shots", type=int, default=3)
parser.add_argument(
    "--set",
    nargs=3,
    action="append",
    metavar=("NAME", "SEED_BASE", "PER_SPACE"),
    help="an evaluation set (repeatable; default: development 910000 3)",
)
parser.add_argument(
    "--tflite",
    nargs=2,
    action="append",
    metavar=("NAME", "DIR"),
    help="an evaluation set of the .tflite files in DIR (repeatable)",
)
parser.add_argument(
    "--reference", action=argparse.BooleanOptionalAction, default=True, help="pool devices too"
)
parser.add_argument("--out", default="reports/maple/onboarding.md")
args = parser.parse_args()
default_sets = [] if args.tflite else [("development", 910_000, 3)]
sets = [(name, int(base), int(per)) for name, base, per in args.set or default_sets]
file_sets = [(name, sorted(Path(folder).glob("*.tflite"))) for name, folder in args.tflite or []]

start = time.perf_counter()
models: dict[str, list[tuple[str, bytes]]] = {}
for set_name, base, per in sets:
    models[set_name] = []
    for space in SPACES:
        spec = get_family(space)
        for i in range(per if space != "cnn-imagenet" else max(1, per // 2)):
            model = spec.model(spec.sample(random.Random(base + i)))
            models[set_name].append((f"{space}:{base + i}", model.to_tflite(converter="direct")))
for set_name, files in file_sets:
    models[set_name] = [(f"{set_name}:{path.stem}", path.read_bytes()) for path in files]

devices = (*VELA_HELD_OUT, *(REFERENCE if args.reference else ()))
errors: dict[tuple[str, str], list[tuple[str, float]]] = {}  # (set, device) → (model, APE)
scales = {}
with tempfile.TemporaryDirectory() as folder:
    for device in devices:
        result = onboard(device, args.shots, folder=Path(folder))
        scales[device] = result.scale
        measure = vela_estimator(device)
        for set_name, found in models.items():
            errors[set_name, device] = [
                (name, abs(result.predict_ms(tflite) / measure(tflite) - 1))
                for name, tflite in found
            ]
        print(f"{short_name(device)} done ({time.perf_counter() - start:.0f} s)", flush=True)

command = " ".join(["python", "scripts/maple_onboard_eval.py", *sys.argv[1:]])
lines = [
    "# Onboarding an NPU outside the pool from K measurements (issue 31)",
    "",
    f"Made by `{command}` (NNLAT_VELA_CONFIG = the pool's vela_pool.ini; onboarding "
    f"format {ONBOARD_VERSION}).",
    "",
    "Models: int8 TFLite networks"
    + (f" of the EdgeDLPerf-like spaces ({', '.join(SPACES)})" if sets else "")
    + (f" from files ({', '.join(f'{n}: {len(f)}' for n, f in file_sets)})" if file_sets else "")
    + ", none in NAS-Bench-201 and none among the shots. Truth: Vela's "
    "estimate on the device. Predictor: `nnlat onboard` (per kind, a rate and a fixed time "
    "per operator from workloads at two or three sizes; the operators' times summed, scaled by the "
    "median ratio of the K shots).",
]
headings = {
    name: f"{len(models[name])} models, seeds from {base}, {per} per space "
    f"(cnn-imagenet {max(1, per // 2)})"
    for name, base, per in sets
} | {name: f"{len(files)} files: {', '.join(p.stem for p in files)}" for name, files in file_sets}
for set_name, heading in headings.items():
    lines += [
        "",
        f"## {set_name}: {heading}",
        "",
        "| device | held out | scale | MAPE | median APE | max APE | within 15 % |",
        "|---|---|---|---|---|---|---|",
    ]
    per_space: dict[str, list[float]] = defaultdict(list)
    held_mape = []
    for device in devices:
        found = [e for _, e in errors[set_name, device]]
        mape = statistics.fmean(found)
        held = device in VELA_HELD_OUT
        if held:
            held_mape.append(mape)
            for name, e in errors[set_name, device]:
                per_space[name.split(":")[0]].append(e)
        lines.append(
            f"| {short_name(device)} | {'yes' if held else 'no (pool)'} | "
            f"{scales[device]:.2f} | {mape:.1%} | {statistics.median(found):.1%} | "
            f"{max(found):.1%} | {sum(e <= 0.15 for e in found) / len(found):.2f} |"
        )
    lines += [
        "",
        f"Mean MAPE over the held-out devices: **{statistics.fmean(held_mape):.1%}** "
        f"(target ≤ 15 %). Per space, held-out devices: "
        + ", ".join(f"{s} {statistics.fmean(e):.1%}" for s, e in per_space.items() if e)
        + ".",
    ]
    if set_name in dict(file_sets):  # few real models: each one's error on each device
        lines += [
            "",
            "| model | " + " | ".join(short_name(d) for d in devices) + " |",
            "|---" * (len(devices) + 1) + "|",
        ]
        for i, (name, _) in enumerate(models[set_name]):
            cells = [f"{errors[set_name, d][i][1]:.1%}" for d in devices]
            lines.append(f"| {name.split(':', 1)[1]} | " + " | ".join(cells) + " |")
lines += ["", f"Wall time: {time.perf_counter() - start:.0f} s (one core, shared)."]
Path(args.out).write_text("\n".join(lines) + "\n")
print("\n".join(lines))
