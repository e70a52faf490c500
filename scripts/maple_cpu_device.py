"""A CPU joins the MAPLE pool: NAS-Bench-201 on LiteRT int8, its descriptor, few-shot methods.

Issue 31's pool is sixteen Ethos-U NPUs (Vela's estimates); its CPU devices need timing on a
quiet core. This script takes one: the int8 TFLite files of the pool's campaign (the same
seeded draw, so the same architecture at every position), timed by LiteRT on this host's
CPU (`epyc-litert2.3-int8-t1`), and:

1. ``descriptor``: MAPLE's operation-level characterisation of the CPU — NAS-Bench-201's 19
   primitive workloads (the NPUs' descriptor workloads) timed alone with the campaign's
   protocol, latency only (this VM has no PMU), plus the CPU's specification
   (:func:`nnlat.measure.descriptor.characterise_cpu`) → ``data/maple/cpu_descriptors.json``;
2. ``export``: the device's latencies by position → ``data/maple/nb201_cpu.csv`` (the pool
   table's layout), checking that every position holds the pool's architecture;
3. ``report``: on the study's 200 test positions, the methods that need no other device's
   counters: ``lut`` (the primitives' latencies summed along the architecture, no shots),
   ``lut-scaled`` (times the median measured / sum of the k shots) and ``lut-fit`` (one
   efficiency per operator kind, fitted on the k shots by ridge regression on relative error
   towards the ``lut-scaled`` scale; the ridge weight chosen on the validation positions,
   never on test), k = 3 and 10, the shots of ``nnlat.studies.maple.shot_positions`` for
   seeds 0–2 → ``reports/maple/cpu_device.md``.

Run (the campaign first, on a quiet core; resumable)::

    chrt -f 1 taskset -c 1 python -m nnlat dataset build -f nasbench201-int8 -n 1100 \\
        -p epyc-litert2.3-int8-t1 --seed 0 --db sqlite:////work/campaign/maple/cpu.db
    chrt -f 1 taskset -c 1 python scripts/maple_cpu_device.py descriptor
    python scripts/maple_cpu_device.py export --db sqlite:////work/campaign/maple/cpu.db
    python scripts/maple_cpu_device.py report
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import numpy as np

from nnlat.measure.descriptor import HardwareDescriptor, load_descriptors, save_descriptors
from nnlat.studies.maple import (
    is_test,
    is_validation,
    load_pool,
    load_table,
    op_counts,
    shot_positions,
)
from nnlat.studies.maple_traffic import primitive_costs
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config

PLATFORM = "epyc-litert2.3-int8-t1"
DATA = Path("data/maple")
DESCRIPTORS = DATA / "cpu_descriptors.json"
TABLE = DATA / "nb201_cpu.csv"
POOL_TABLE = DATA / "nb201_vela_pool.csv"
REPORT = Path("reports/maple/cpu_device.md")
SHOTS = (3, 10)
SEEDS = 3
RIDGE = (0.01, 0.1, 1.0, 10.0)


def descriptor(platform: str) -> None:
    """Time the 19 primitive workloads on ``platform`` (skipped if already saved)."""
    from nnlat.datasets import CAMPAIGN_SPEC
    from nnlat.measure.descriptor import characterise_cpu
    from nnlat.studies.maple_spaces import nb201_workloads

    found = load_descriptors(DESCRIPTORS) if DESCRIPTORS.is_file() else {}
    if platform not in found:
        found[platform] = characterise_cpu(platform, nb201_workloads(), spec=CAMPAIGN_SPEC)
        save_descriptors(list(found.values()), DESCRIPTORS)
    print(json.dumps(found[platform].to_json(), indent=1)[:2000])


def export(db: str, platform: str) -> None:
    """Write the device's column by position; refuse a position whose architecture differs."""
    data = load_pool(db, [platform])
    pool = load_table(POOL_TABLE)
    rows = []
    for position in data.complete():
        arch = data.archs[position]
        if position < len(pool.archs) and pool.archs[position] not in ("", arch):
            raise SystemExit(
                f"position {position}: {arch} here, {pool.archs[position]} in the pool"
            )
        split = "test" if is_test(int(position)) else "train"
        rows.append([int(position), split, arch, f"{data.latency_ms[position, 0]:.6g}"])
    with TABLE.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["position", "split", "arch", platform])
        writer.writerows(rows)
    print(f"{len(rows)} positions → {TABLE}")


def parts(archs: list[str], desc: HardwareDescriptor) -> np.ndarray:
    """``(archs, 8)``: each converted-operator kind's cost summed along the arch, then the
    fixed part (stem, reductions, head): their sum is the look-up-table latency."""
    costs = primitive_costs(desc, dict(arch_config(ALL_CONV3X3)))
    counts = np.stack([op_counts(a) for a in archs])
    return np.concatenate([counts * costs[:-1], np.full((len(archs), 1), costs[-1])], axis=1)


def fit_efficiencies(design: np.ndarray, measured: np.ndarray, ridge: float) -> np.ndarray:
    """Per-part efficiencies e minimising Σ((design·e − m)/m)² + ridge·n·Σ(e − s)², s the
    median measured / sum of the shots (the ``lut-scaled`` prior)."""
    scale = float(np.median(measured / design.sum(axis=1)))
    a = design / measured[:, None]
    b = np.ones(len(measured))
    n = len(measured)
    lhs = a.T @ a + ridge * n * np.eye(a.shape[1])
    rhs = a.T @ b + ridge * n * scale * np.ones(a.shape[1])
    return np.linalg.solve(lhs, rhs)


def accuracy(measured: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    """Acc(10 %), MAPE and Spearman of ``predicted`` against ``measured``."""
    from scipy.stats import spearmanr

    error = np.abs(predicted / measured - 1)
    rho = spearmanr(measured, predicted).statistic
    return {"acc_10": float(np.mean(error <= 0.1)), "mape": float(error.mean()), "rho": float(rho)}


def predict(
    method: str, design: np.ndarray, shots: np.ndarray, m: np.ndarray, ridge: float
) -> np.ndarray:
    """The method's predictions for every row of ``design`` from the shot rows."""
    lut = design.sum(axis=1)
    if method == "lut":
        return lut
    if method == "lut-scaled":
        return lut * np.median(m[shots] / lut[shots])
    return design @ fit_efficiencies(design[shots], m[shots], ridge)


def report(platform: str) -> str:
    """Score the methods on the test positions; the ridge weight chosen on validation."""
    data = load_table(TABLE)
    desc = load_descriptors(DESCRIPTORS)[platform]
    m = data.latency_ms[:, 0]
    complete = data.complete()
    design = np.zeros((len(data.archs), 8))
    design[complete] = parts([data.archs[p] for p in complete], desc)
    train = np.array([p for p in complete if not is_test(int(p))])
    test = np.array([p for p in complete if is_test(int(p))])
    fit = np.array([p for p in train if not is_validation(int(p))])
    valid = np.array([p for p in train if is_validation(int(p))])

    def scores(method: str, k: int, ridge: float, pool: np.ndarray, target: np.ndarray):
        rows = [
            accuracy(
                m[target],
                predict(method, design, shot_positions(pool, k, platform, s), m, ridge)[target],
            )
            for s in range(SEEDS)
        ]
        return {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}

    chosen = {
        k: min(RIDGE, key=lambda r, k=k: -scores("lut-fit", k, r, fit, valid)["acc_10"])
        for k in SHOTS
    }
    lines = [
        f"# A CPU in the MAPLE pool: NAS-Bench-201 on `{platform}` (issue 31)",
        "",
        "Made by `python scripts/maple_cpu_device.py report` (the campaign and descriptor",
        "commands are in the script's docstring).",
        "",
        f"Device: LiteRT int8 on one pinned core, {desc.notes[1]}: "
        f"{int(desc.spec['physical_cores'])} cores, L2 {int(desc.spec['cache_l2_bytes']) >> 10} "
        f"KiB, L3 {int(desc.spec['cache_l3_bytes']) >> 20} MiB. Descriptor: the 19 primitive "
        f"workloads timed alone, latency only ({desc.notes[0]}).",
        f"Architectures: {len(complete)} positions measured ({len(train)} training, "
        f"{len(test)} test; the pool's split), the pool's architecture at every position.",
        f"Ridge weight of `lut-fit`, chosen on the {len(valid)} validation positions (fitted on "
        f"shots from the other {len(fit)}): "
        + ", ".join(f"k = {k}: {r}" for k, r in chosen.items())
        + ".",
        "",
        "| method | k | Acc(10 %) | MAPE | Spearman |",
        "|---|---|---|---|---|",
    ]
    for method in ("lut", "lut-scaled", "lut-fit"):
        for k in (0,) if method == "lut" else SHOTS:
            row = scores(method, max(k, 1), chosen.get(k, 0.0), train, test)
            acc, mape, rho = row["acc_10"], 100 * row["mape"], row["rho"]
            lines.append(f"| {method} | {k} | {acc:.3f} | {mape:.1f} % | {rho:.3f} |")
    lines += ["", "Mean over the three shot draws (seeds 0–2 of `shot_positions`)."]
    text = "\n".join(lines) + "\n"
    REPORT.write_text(text)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["descriptor", "export", "report"])
    parser.add_argument("--db", default="sqlite:////work/campaign/maple/cpu.db")
    parser.add_argument("-p", "--platform", default=PLATFORM)
    args = parser.parse_args()
    if args.step == "descriptor":
        descriptor(args.platform)
    elif args.step == "export":
        export(args.db, args.platform)
    else:
        print(report(args.platform))


if __name__ == "__main__":
    main()
