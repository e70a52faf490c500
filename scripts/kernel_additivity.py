"""Report: is a model's latency the sum of its kernels' latencies? (NNLQP Figure 2)

Run:  taskset -c 0 python scripts/kernel_additivity.py [--per-family 8] [--platform NAME]

For a sample of zoo variants of six families (the paper's ResNet, AlexNet,
NAS-Bench-201, EfficientNet, MobileNetV2, MobileNetV3), splits each model into kernels
(``nnlat.graph.kernels``, NNLQP Table 8 fusion rules), cuts every kernel out as a model
of its own (``nnlat.graph.extract``), times the whole model and each kernel alone with
the same protocol on the same platform, and compares the model latency with the sum of
its kernels' median latencies.

Writes, in the report folder ``reports/kernel_additivity/``, ``kernels.csv`` (one row per
model; appended as it goes, so a stopped run resumes where it stopped), ``README.md``
(per-family ratio and linear fit) and ``plot.png`` (the scatter plot).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

import numpy as np

from nnlat.graph import load
from nnlat.graph.extract import extract_kernel
from nnlat.graph.kernels import split_kernels
from nnlat.measure.runner import measure, reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.zoo.generate import generate_variants

FAMILIES = ("resnet", "alexnet", "nasbench201", "efficientnet", "mobilenetv2", "mobilenetv3")
SPEC = MeasureSpec(warmup_min_runs=3, warmup_max_s=0.5, min_runs=10, max_time_s=0.5)
FIELDS = ["family", "graph_hash", "kernels", "kernels_timed", "model_ms", "kernel_sum_ms"]


def time_model(family: str, variant, platform: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Median latency of the whole model and the sum of its kernels' medians."""
    graph = variant.graph
    whole = measure(graph, platform, SPEC)
    if whole.stats is None:
        raise RuntimeError(f"{family} {variant.graph_hash}: {whole.error}")
    kernels = split_kernels(graph)
    total, timed = 0.0, 0
    for kernel in kernels:
        cut = extract_kernel(graph, kernel)
        if cut is None:
            continue
        result = measure(load(cut), platform, SPEC)
        if result.stats is None:
            print(f"  kernel {kernel.pattern} failed: {result.error}", file=sys.stderr)
            continue
        total += result.stats.median_ms
        timed += 1
    return {
        "family": family,
        "graph_hash": variant.graph_hash,
        "kernels": len(kernels),
        "kernels_timed": timed,
        "model_ms": round(whole.stats.median_ms, 5),
        "kernel_sum_ms": round(total, 5),
    }


def read_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def collect(path: Path, families: list[str], per_family: int, platform: str) -> None:
    """Time models not yet in the CSV, appending one row per model."""
    done = {row["graph_hash"] for row in read_rows(path)}
    new_file = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if new_file:
            writer.writeheader()
        for family in families:
            for index, variant in enumerate(generate_variants(family, per_family, seed=0)):
                if variant.graph_hash in done:
                    continue
                row = time_model(family, variant, platform)
                writer.writerow(row)
                f.flush()
                ratio = float(row["kernel_sum_ms"]) / float(row["model_ms"])
                print(f"{family} {index + 1}/{per_family}: ratio {ratio:.2f}", file=sys.stderr)


def fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least-squares line y = a·x + b and its R²."""
    a, b = np.polyfit(xs, ys, 1)
    predicted = np.polyval([a, b], xs)
    ss_res = float(np.sum((np.asarray(ys) - predicted) ** 2))
    ss_tot = float(np.sum((np.asarray(ys) - np.mean(ys)) ** 2))
    return float(a), float(b), 1 - ss_res / ss_tot if ss_tot else float("nan")


def write_report(rows: list[dict[str, str]], out: Path, platform: str, command: str) -> None:
    by_family: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        by_family.setdefault(row["family"], []).append(
            (float(row["model_ms"]), float(row["kernel_sum_ms"]))
        )
    lines = [
        "# Kernel additivity (NNLQP Figure 2)",
        "",
        f"Command: `{command}`",
        "",
        f"Platform `{platform}`; protocol: warm-up ≥ 3 runs, ≥ 10 timed runs, ≤ 0.5 s per",
        "model or kernel; medians. *ratio* = sum of kernel medians / model median; the fit",
        "is kernel sum = slope × model latency + intercept.",
        "",
        "| family | models | ratio median | ratio min | ratio max | slope | intercept ms | R² |",
        "|---|---|---|---|---|---|---|---|",
    ]
    everything = [pair for pairs in by_family.values() for pair in pairs]
    for name, pairs in [*sorted(by_family.items()), ("all", everything)]:
        ratios = [s / m for m, s in pairs]
        slope, intercept, r2 = fit([m for m, _ in pairs], [s for _, s in pairs])
        lines.append(
            f"| {name} | {len(pairs)} | {statistics.median(ratios):.2f} | {min(ratios):.2f} | "
            f"{max(ratios):.2f} | {slope:.2f} | {intercept:.2f} | {r2:.3f} |"
        )
    above = sum(s > m for m, s in everything)
    lines += [
        "",
        f"{above} of {len(everything)} models lie above y = x (kernel sum > model latency).",
        "",
        "![scatter](plot.png)",
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    plot(by_family, out / "plot.png", platform)


def plot(by_family: dict[str, list[tuple[float, float]]], path: Path, platform: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 6))
    for name, pairs in sorted(by_family.items()):
        ax.scatter([m for m, _ in pairs], [s for _, s in pairs], label=name, s=18)
    values = [v for pairs in by_family.values() for pair in pairs for v in pair]
    low, high = min(values) * 0.8, max(values) * 1.25
    ax.plot([low, high], [low, high], color="red", linewidth=1, label="y = x")
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high))
    ax.set_xlabel("model latency, median ms")
    ax.set_ylabel("sum of kernel latencies, ms")
    ax.set_title(f"Kernel additivity on {platform}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-family", type=int, default=8)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--platform", default=None, help="default: the reference platform")
    parser.add_argument("--out", type=Path, default=Path("reports/kernel_additivity"))
    args = parser.parse_args()
    platform = args.platform or reference_platform().name
    csv_path = args.out / "kernels.csv"
    args.out.mkdir(parents=True, exist_ok=True)
    collect(csv_path, args.families.split(","), args.per_family, platform)
    command = "taskset -c 0 python scripts/kernel_additivity.py " + " ".join(sys.argv[1:])
    write_report(read_rows(csv_path), args.out, platform, command.strip())
    print(f"wrote {args.out / 'README.md'} and {args.out / 'plot.png'}")


if __name__ == "__main__":
    main()
