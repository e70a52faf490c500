"""Report: the measured EdgeDLPerf-like dataset, one column per design space.

Run:  python scripts/edge_dataset_summary.py --db sqlite:////work/campaign/edge.db \
          [--out data/edge/SUMMARY.md]

Reads a store holding the edge campaign (or an imported ``data/edge-*.jsonl.gz``) and
prints PerfSAGE's Table 2 shape for what was *measured*: distinct models per space, the
ranges of operators (IR nodes), weights and MACs, and per platform the number of results,
the latency range, the memory range (SRAM on a Vela NPU; on a CPU what the measurements'
memory method reads, named in the row: LiteRT's heap, another runtime's resident set)
and how many models Vela could not place whole on the NPU. The architecture-side table
(TFLite operators, tensors, file sizes, operator types) is ``reports/edge_spaces/``.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from nnlat.measure.types import Measurement
from nnlat.store import Store
from nnlat.store.records import StoredModel

SPACES = ("cnn-cifar10", "cnn-imagenet", "cnn-kws", "vit-cifar100")


def _span(values: list[float], fmt: str) -> str:
    return f"{format(min(values), fmt)}-{format(max(values), fmt)}" if values else "–"


def summary_lines(store: Store) -> list[str]:
    """The Markdown tables of a store's edge-space models and measurements."""
    models: dict[str, StoredModel] = {}
    for space in SPACES:
        models.update({m.graph_hash: m for m in store.list_models(family=space)})
    by_space: dict[str, list[StoredModel]] = defaultdict(list)
    for model in models.values():
        by_space[model.family or "?"].append(model)
    results: dict[tuple[str, str], list[Measurement]] = defaultdict(list)
    for space in SPACES:
        for m in store.list_measurements(family=space, status=None):
            results[space, m.platform].append(m)
    spaces = [s for s in SPACES if by_space[s]]
    lines = [
        "| | " + " | ".join(spaces) + " |",
        "|---" * (len(spaces) + 1) + "|",
        "| models | " + " | ".join(f"{len(by_space[s]):,}" for s in spaces) + " |",
        "| operators (IR nodes) | "
        + " | ".join(_span([m.nodes for m in by_space[s]], "d") for s in spaces)
        + " |",
        "| weights (M) | "
        + " | ".join(_span([m.params / 1e6 for m in by_space[s]], ".2f") for s in spaces)
        + " |",
        "| MACs (M) | "
        + " | ".join(_span([m.macs / 1e6 for m in by_space[s]], ".1f") for s in spaces)
        + " |",
    ]
    platforms = sorted({p for (_, p) in results})
    for platform in platforms:
        lines.append(f"| **{platform}** |" + " |" * len(spaces))
        cells = [results[s, platform] for s in spaces]
        ok = [[m for m in found if m.status == "ok" and m.stats] for found in cells]
        lines.append(
            "| results ok / failed | "
            + " | ".join(f"{len(o):,} / {len(f) - len(o)}" for o, f in zip(ok, cells, strict=True))
            + " |"
        )
        lines.append(
            "| latency (ms) | "
            + " | ".join(_span([m.stats.median_ms for m in o], ".2f") for o in ok)  # type: ignore[union-attr]
            + " |"
        )
        # The spread of a measurement's own repetitions: how quiet the host was.
        lines.append(
            "| latency CV, median | "
            + " | ".join(
                f"{statistics.median(m.stats.cv for m in o):.3f}"  # type: ignore[union-attr]
                if o and not all(m.deterministic for m in o)
                else "–"  # nothing measured, or an estimate (Vela): no spread to show
                for o in ok
            )
            + " |"
        )
        memory = [[m.peak_memory_bytes / 2**10 for m in o if m.peak_memory_bytes] for o in ok]
        npu = any(m.npu for o in ok for m in o)
        methods = sorted({m.environment.get("memory", "?") for o in ok for m in o})
        label = "SRAM used (KiB)" if npu else f"memory (KiB, {', '.join(methods)})"
        lines.append(f"| {label} | " + " | ".join(_span(v, ".0f") for v in memory) + " |")
        if npu:
            fallback = [sum(bool(m.npu and m.npu.cpu_operators) for m in o) for o in ok]
            lines.append(
                "| models with CPU fallback | " + " | ".join(str(n) for n in fallback) + " |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="database URL of the campaign")
    parser.add_argument("--out", type=Path, help="write the Markdown here instead of stdout")
    args = parser.parse_args()
    text = "\n".join(summary_lines(Store.open(args.db))) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
