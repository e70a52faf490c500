"""How well a model's size explains each measured target of the EdgeDLPerf-like data.

For each data file and design space: Spearman's rank correlation of the latency with the
model's MACs, bytes moved and node count, and how many CPU memory values are zero (the run
reused pages it held: no growth of the resident set). A target that MACs rank well is
easy for any predictor; one they rank badly needs the graph's structure or is noisy.

Usage:
    python scripts/edge_target_ranks.py data/edge-litert-xeon.jsonl.gz data/edge-vela.jsonl.gz
"""

from __future__ import annotations

import collections
import gzip
import json
import sys

import numpy as np
from scipy.stats import spearmanr


def models(path: str):  # type: ignore[no-untyped-def]
    """The model lines of an ``nnlat db export`` file (its header line skipped)."""
    with gzip.open(path, "rt") as handle:
        for line in handle:
            row = json.loads(line)
            if "graph_hash" in row:
                yield row


def main() -> None:
    """One line per (file, space)."""
    print(
        "| file | space | models | ρ(latency, MACs) | ρ(latency, bytes) | ρ(latency, nodes)"
        " | memory = 0 |"
    )
    print("|---|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        by_space = collections.defaultdict(list)
        for row in models(path):
            for m in row["measurements"]:
                if m.get("status") == "ok":
                    memory = m.get("peak_memory_bytes")
                    by_space[row["family"]].append(
                        (float(row["macs"]), float(row["bytes_moved"]), float(row["nodes"]),
                         m["stats"]["median_ms"], -1.0 if memory is None else float(memory))
                    )  # fmt: skip
        for space, values in sorted(by_space.items()):
            a = np.array(values)
            rho = [spearmanr(a[:, i], a[:, 3]).statistic for i in range(3)]
            zeros = f"{int((a[:, 4] == 0).sum())}" if (a[:, 4] >= 0).any() else "–"
            print(
                f"| {path.split('/')[-1]} | {space} | {len(a)} | "
                + " | ".join(f"{r:.2f}" for r in rho)
                + f" | {zeros} |"
            )


if __name__ == "__main__":
    main()
