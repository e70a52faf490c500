"""CPUs join the MAPLE pool: NAS-Bench-201 on LiteRT int8, their descriptors, few-shot methods.

Issue 31's pool is sixteen Ethos-U NPUs (Vela's estimates); its CPU devices need timing on a
quiet core. This script takes two, on this host's CPU, both running the int8 TFLite files
of the pool's campaign (the same seeded draw, so the same architecture at every position):
LiteRT with its XNNPACK delegate (`epyc-litert2.3-int8-t1`) and with its builtin kernels
(`epyc-litertbuiltin2.3-int8-t1`), one pinned thread each. Steps:

1. ``descriptor``: MAPLE's operation-level characterisation of a CPU device —
   NAS-Bench-201's 19 primitive workloads (the NPUs' descriptor workloads) timed alone with
   the campaign's protocol, latency only (this VM has no PMU), plus the CPU's specification
   (:func:`nnlat.measure.descriptor.characterise_cpu`) → ``data/maple/cpu_descriptors.json``;
2. ``export``: the devices' latencies by position → ``data/maple/nb201_cpu.csv`` (the pool
   table's layout), checking that every position holds the pool's architecture;
3. ``report``: leave each CPU device out; on the study's 200 test positions, ``lut`` (the
   primitives' latencies summed along the architecture, no shots), ``lut-scaled`` (times
   the median measured / sum of the k shots), ``lut-fit`` (one efficiency per operator kind,
   fitted on the k shots by ridge regression on relative error towards the ``lut-scaled``
   scale; the ridge weight chosen on the validation positions, never on test) and
   ``ops-transfer`` (``maple-ops``'s :class:`~nnlat.predictor.maple.OpCostTransfer` with the
   other CPU device as the pool: its per-kind efficiencies, least squares on its training
   positions, applied to the target's own descriptor and scaled by the shots), k = 3 and
   10, the shots of ``nnlat.studies.maple.shot_positions`` for seeds 0–2
   → ``reports/maple/cpu_devices.md``.

Run (the campaigns first, on a quiet core; resumable)::

    for p in epyc-litert2.3-int8-t1 epyc-litertbuiltin2.3-int8-t1; do
        chrt -f 1 taskset -c 1 python -m nnlat dataset build -f nasbench201-int8 -n 1100 \
            -p $p --seed 0 --db sqlite:////work/campaign/maple/cpu.db
        chrt -f 1 taskset -c 1 python scripts/maple_cpu_device.py descriptor -p $p
    done
    python scripts/maple_cpu_device.py export --db sqlite:////work/campaign/maple/cpu.db
    python scripts/maple_cpu_device.py report
"""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nnlat.measure.descriptor import HardwareDescriptor, load_descriptors, save_descriptors
from nnlat.predictor.maple import OpCostTransfer, priced
from nnlat.studies.maple import (
    PoolData,
    is_test,
    is_validation,
    load_pool,
    load_table,
    op_counts,
    shot_positions,
)
from nnlat.studies.maple_traffic import primitive_costs
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config

PLATFORMS = ("epyc-litert2.3-int8-t1", "epyc-litertbuiltin2.3-int8-t1")
DATA = Path("data/maple")
DESCRIPTORS = DATA / "cpu_descriptors.json"
TABLE = DATA / "nb201_cpu.csv"
POOL_TABLE = DATA / "nb201_vela_pool.csv"
REPORT = Path("reports/maple/cpu_devices.md")
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


def export(db: str, platforms: tuple[str, ...]) -> None:
    """Write the devices' columns by position (rows measured on all of them); refuse a
    position whose architecture differs from the pool's."""
    data = load_pool(db, list(platforms))
    pool = load_table(POOL_TABLE)
    rows = []
    for position in data.complete():
        arch = data.archs[position]
        if position < len(pool.archs) and pool.archs[position] not in ("", arch):
            raise SystemExit(
                f"position {position}: {arch} here, {pool.archs[position]} in the pool"
            )
        split = "test" if is_test(int(position)) else "train"
        latencies = [f"{v:.6g}" for v in data.latency_ms[position]]
        rows.append([int(position), split, arch, *latencies])
    with TABLE.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["position", "split", "arch", *platforms])
        writer.writerows(rows)
    print(f"{len(rows)} positions × {len(platforms)} devices → {TABLE}")


def parts(archs: list[str], desc: HardwareDescriptor) -> np.ndarray:
    """``(archs, 8)``: each converted-operator kind's cost summed along the arch, then the
    fixed part (stem, reductions, head): their sum is the look-up-table latency."""
    costs = primitive_costs(desc, dict(arch_config(ALL_CONV3X3)))
    return priced(np.stack([op_counts(a) for a in archs]), costs[None])[0]


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


def least_squares_efficiencies(design: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """Per-part efficiencies fitted on a device's own rows (relative error, no prior)."""
    a = design / measured[:, None]
    return np.linalg.lstsq(a, np.ones(len(measured)), rcond=None)[0]


def predict(
    method: str, design: np.ndarray, shots: np.ndarray, m: np.ndarray, ridge: float,
    transfer: OpCostTransfer | None = None,
) -> np.ndarray:  # fmt: skip
    """The method's predictions for every row of ``design`` (the target's parts) from the
    shot rows; ``transfer``: fitted on the other CPU devices, for ``ops-transfer``."""
    lut = design.sum(axis=1)
    if method == "lut":
        return lut
    if method == "lut-scaled":
        return lut * np.median(m[shots] / lut[shots])
    if method == "ops-transfer":
        assert transfer is not None
        sources = len(transfer.efficiency_)
        adapted = transfer.adapt(design[shots], m[shots], np.zeros(sources))
        return transfer.predict(design, adapted)
    return design @ fit_efficiencies(design[shots], m[shots], ridge)


METHODS = ("lut", "lut-scaled", "lut-fit", "ops-transfer")


@dataclass(frozen=True)
class Target:
    """A left-out device: its name, parts per position, latencies, the carried efficiencies."""

    platform: str
    design: np.ndarray
    measured: np.ndarray
    transfer: OpCostTransfer | None

    def scores(
        self, method: str, k: int, ridge: float, pool: np.ndarray, rows: np.ndarray
    ) -> dict[str, float]:
        """Mean accuracy over the shot draws of ``method`` on ``rows`` (shots from ``pool``)."""
        found = []
        for seed in range(SEEDS):
            shots = shot_positions(pool, k, self.platform, seed)
            m = self.measured
            predicted = predict(method, self.design, shots, m, ridge, self.transfer)
            found.append(accuracy(m[rows], predicted[rows]))
        return {key: float(np.mean([f[key] for f in found])) for key in found[0]}


def boosted_ceiling(data: PoolData, target: int, train: np.ndarray, test: np.ndarray) -> dict:
    """Gradient-boosted trees on the cell's encoding, trained on the device's own training
    architectures (log latency): how far any model of the cell alone gets."""
    from sklearn.ensemble import GradientBoostingRegressor

    from nnlat.studies.maple_spaces import space_of

    space = space_of("nasbench201-int8")
    x = np.stack([space.encode(a) for a in data.archs])
    y = data.latency_ms[:, target]
    model = GradientBoostingRegressor(
        n_estimators=600, max_depth=4, learning_rate=0.05, subsample=0.8, random_state=0
    ).fit(x[train], np.log(y[train]))
    return accuracy(y[test], np.exp(model.predict(x[test])))


def report(platforms: tuple[str, ...]) -> str:
    """Leave each device out; score the methods on its test positions (the ridge weight
    of ``lut-fit`` chosen on validation positions)."""
    data = load_table(TABLE)
    descriptors = load_descriptors(DESCRIPTORS)
    complete = data.complete()
    train = np.array([p for p in complete if not is_test(int(p))])
    test = np.array([p for p in complete if is_test(int(p))])
    fit = np.array([p for p in train if not is_validation(int(p))])
    valid = np.array([p for p in train if is_validation(int(p))])
    designs = {}
    for platform in platforms:
        designs[platform] = np.zeros((len(data.archs), 8))
        designs[platform][complete] = parts(
            [data.archs[p] for p in complete], descriptors[platform]
        )
    first = descriptors[platforms[0]]
    lines = [
        "# CPUs in the MAPLE pool: NAS-Bench-201 on LiteRT int8 (issue 31)",
        "",
        "Made by `python scripts/maple_cpu_device.py report` (the campaign and descriptor",
        "commands are in the script's docstring).",
        "",
        f"Devices: {', '.join(f'`{p}`' for p in platforms)}, one pinned thread each, "
        f"{first.notes[1]}: {int(first.spec['physical_cores'])} cores, L2 "
        f"{int(first.spec['cache_l2_bytes']) >> 10} KiB, L3 "
        f"{int(first.spec['cache_l3_bytes']) >> 20} MiB. Descriptors: the 19 primitive "
        f"workloads timed alone, latency only ({first.notes[0]}).",
        f"Architectures: {len(complete)} positions measured on every device ({len(train)} "
        f"training, {len(test)} test; the pool's split), the pool's architecture at every "
        "position. Scores are means over three shot draws (seeds 0–2 of `shot_positions`).",
        "",
        "## On their own: look-up tables of the device's primitives",
        "",
        "| device | method | k | Acc(10 %) | MAPE | Spearman |",
        "|---|---|---|---|---|---|",
    ]
    chosen_notes = []
    for target, platform in enumerate(platforms):
        source = [i for i in range(len(platforms)) if i != target]
        transfer = None
        if source:  # the other CPUs' efficiencies on their own descriptors, their training rows
            transfer = OpCostTransfer().fit(
                np.stack([designs[platforms[i]][train] for i in source]),
                data.latency_ms[np.ix_(train, source)],
            )

        device = Target(platform, designs[platform], data.latency_ms[:, target], transfer)
        chosen = {
            k: max(RIDGE, key=lambda r, k=k: device.scores("lut-fit", k, r, fit, valid)["acc_10"])
            for k in SHOTS
        }
        chosen_notes.append(
            f"`{platform}`: " + ", ".join(f"k = {k}: {r}" for k, r in chosen.items())
        )
        for method in METHODS:
            if method == "ops-transfer" and transfer is None:
                continue
            for k in (0,) if method == "lut" else SHOTS:
                row = device.scores(method, max(k, 1), chosen.get(k, 0.0), train, test)
                acc, mape, rho = row["acc_10"], 100 * row["mape"], row["rho"]
                lines.append(
                    f"| {platform} | {method} | {k} | {acc:.3f} | {mape:.1f} % | {rho:.3f} |"
                )
        # the ceiling of any per-kind pricing: efficiencies fitted on the device's own 900
        own = least_squares_efficiencies(designs[platform][train], data.latency_ms[train, target])
        found = accuracy(data.latency_ms[test, target], (designs[platform] @ own)[test])
        acc, mape, rho = found["acc_10"], 100 * found["mape"], found["rho"]
        lines.append(
            f"| {platform} | *ceiling: own {len(train)} fitted* | – | {acc:.3f} | {mape:.1f} % "
            f"| {rho:.3f} |"
        )
        found = boosted_ceiling(data, target, train, test)
        acc, mape, rho = found["acc_10"], 100 * found["mape"], found["rho"]
        lines.append(
            f"| {platform} | *boosted trees on the cell, own {len(train)}* | – | {acc:.3f} | "
            f"{mape:.1f} % | {rho:.3f} |"
        )
    lines += [
        "",
        f"Ridge weight of `lut-fit`, chosen on the {len(valid)} validation positions (shots "
        f"from the other {len(fit)} training positions): " + "; ".join(chosen_notes) + ".",
    ]
    for table in sorted(RUNS.glob("cpu-pool-*-devices/table.md")):  # written by `pool`
        lines += ["", f"## With the NPU pool: {table.parent.name}", "", table.read_text().strip()]
    text = "\n".join(lines) + "\n"
    REPORT.write_text(text)
    return text


def repeat(db: str, platform: str, count: int) -> str:
    """Re-export and re-time the first ``count`` positions in this (fresh) process; the
    median deviation from the campaign's medians."""
    from nnlat.datasets import CAMPAIGN_SPEC
    from nnlat.measure.runner import median_ms
    from nnlat.studies.maple_spaces import space_of
    from nnlat.zoo import get_family

    data, space = load_pool(db, [platform]), space_of("nasbench201-int8")
    family = get_family("nasbench201-int8")
    deviations = []
    for position in data.complete()[:count]:
        tflite = family.model(space.config(data.archs[position])).to_tflite()
        again = median_ms(tflite, platform, CAMPAIGN_SPEC)
        deviations.append(abs(again / data.latency_ms[position, 0] - 1))
    return (
        f"{platform}: {len(deviations)} positions re-timed, median deviation "
        f"{100 * float(np.median(deviations)):.1f} %, largest {100 * max(deviations):.1f} %"
    )


POOL_METHODS = ("help", "maple-latency", "nnlp-ft")
RUNS = Path("reports/maple/runs")


def pool(platforms: tuple[str, ...], seeds: int) -> list[str]:
    """Each CPU device left out of the sixteen NPUs and the other CPUs: the study's
    methods that need no Vela counters (HELP-style, MAPLE's regressor on the descriptors'
    latency part, NNLP pre-trained on the other devices with a new head on the k shots),
    run by :func:`nnlat.studies.maple.run` on the merged table; Markdown rows."""
    import tempfile

    from nnlat.studies import maple as study

    npus, cpus = load_table(POOL_TABLE), load_table(TABLE)
    size = min(len(npus.archs), len(cpus.archs))
    columns = [cpus.devices.index(p) for p in platforms]
    latency = np.concatenate([npus.latency_ms[:size], cpus.latency_ms[:size, columns]], axis=1)
    merged = study.PoolData(npus.archs[:size], (*npus.devices, *platforms), latency)
    found = {
        **load_descriptors(POOL_TABLE.parent / "descriptors.json"),
        **load_descriptors(DESCRIPTORS),
    }
    with tempfile.TemporaryDirectory() as folder:
        table, descriptors = Path(folder) / "pool.csv", Path(folder) / "descriptors.json"
        study.write_table(merged, table)
        save_descriptors([found[d] for d in merged.devices], descriptors)
        out = RUNS / f"cpu-pool-{len(merged.devices)}-devices" / "results.jsonl"
        out.parent.mkdir(parents=True, exist_ok=True)
        config = study.MapleConfig(
            db="",
            descriptors=str(descriptors),
            devices=merged.devices,
            methods=POOL_METHODS,
            shots=SHOTS,
            seeds=seeds,
            steps=200,
            out=str(out),
            table=str(table),
            nnlp_folds=len(merged.devices),  # one by one: only the CPU's own pre-training
            nnlp_epochs=15,
            targets=platforms,
        )
        results = study.run(
            config,
            on_result=lambda r: print(
                r.device, r.method, r.shots, r.seed, f"{r.acc_10:.3f}", flush=True
            ),
        )
    rows = [
        f"Leave each CPU device out of {len(merged.devices)} devices (the 16 pool NPUs and "
        f"{', '.join(f'`{p}`' for p in platforms)}); `python scripts/maple_cpu_device.py pool "
        + " ".join(f"-p {p}" for p in platforms)
        + f" --seeds {seeds}` (results: `{out}`). Means over the shot draws.",
        "",
        "| device | method | k | Acc(10 %) | MAPE | Spearman |",
        "|---|---|---|---|---|---|",
    ]
    for platform in platforms:
        for method in POOL_METHODS:
            for k in SHOTS:
                chosen = [
                    r
                    for r in results.rows
                    if (r.device, r.method, r.shots) == (platform, method, k)
                ]
                acc, mape, rho = (
                    float(np.mean([getattr(r, a) for r in chosen]))
                    for a in ("acc_10", "mape", "spearman")
                )
                rows.append(
                    f"| {platform} | {method} | {k} | {acc:.3f} | {100 * mape:.1f} % | {rho:.3f} |"
                )
    (out.parent / "table.md").write_text("\n".join(rows) + "\n")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["descriptor", "export", "report", "pool", "repeat"])
    parser.add_argument("--seeds", type=int, default=SEEDS, help="pool: draws of the shots")
    parser.add_argument("--db", default="sqlite:////work/campaign/maple/cpu.db")
    parser.add_argument(
        "-p", "--platform", action="append", help=f"(repeatable) default: {', '.join(PLATFORMS)}"
    )
    args = parser.parse_args()
    platforms = tuple(args.platform or PLATFORMS)
    if args.step == "descriptor":
        for platform in platforms:
            descriptor(platform)
    elif args.step == "export":
        export(args.db, platforms)
    elif args.step == "repeat":
        for platform in platforms:
            print(repeat(args.db, platform, 20))
    elif args.step == "pool":
        print("\n".join(pool(platforms, args.seeds)))
    else:
        print(report(platforms))


if __name__ == "__main__":
    main()
