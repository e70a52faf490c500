"""How much of onnxruntime's profiled time is credited to graph nodes, per family.

For every stored measurement of a platform that has a per-node profile
(``nnlat dataset profile``), read how much of the profiled total the attribution rules
of :mod:`nnlat.measure.node_profile` credit to a node of the graph, how many of the
graph's nodes get a target (the others are masked: fused away, folded, or unmatched),
and which runtime operators keep the unmatched time. Prints a Markdown table.

Usage:
    python scripts/node_profile_coverage.py --db sqlite:////work/campaign/profile/epyc.db \\
        -p epyc-ort1.31-fp32-t1
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter, defaultdict

from nnlat.store import Store


def main() -> None:
    """Print the coverage table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="Database URL.")
    parser.add_argument("-p", "--platform", required=True, help="The stored platform.")
    args = parser.parse_args()
    store = Store.open(args.db)
    time_share: dict[str, list[float]] = defaultdict(list)
    node_share: dict[str, list[float]] = defaultdict(list)
    unmatched: Counter[str] = Counter()
    total_ms = 0.0
    notes = 0
    for m in store.list_measurements(args.platform):
        if m.node_profile is None:
            notes += m.node_profile_note is not None
            continue
        model = store.get_model(m.graph_hash)
        family = (model.family if model else None) or "unknown"
        total = m.node_profile.total_ms()
        credited = sum(t.ms for t in m.node_profile.nodes if t.node_index is not None)
        nodes = {t.node_index for t in m.node_profile.nodes if t.node_index is not None}
        time_share[family].append(credited / total if total > 0 else 0.0)
        node_share[family].append(len(nodes) / model.nodes if model and model.nodes else 0.0)
        for t in m.node_profile.nodes:
            if t.node_index is None:
                unmatched[t.op] += t.ms
        total_ms += total
    print("| family | profiled models | time credited to a node | nodes with a target |")
    print("|---|---|---|---|")
    for family in sorted(time_share):
        credited, targets = time_share[family], node_share[family]
        print(
            f"| {family} | {len(credited)} | {statistics.mean(credited):.1%} | "
            f"{statistics.mean(targets):.1%} |"
        )
    every_time = [v for values in time_share.values() for v in values]
    every_node = [v for values in node_share.values() for v in values]
    if every_time:
        print(
            f"| **all** | {len(every_time)} | {statistics.mean(every_time):.1%} | "
            f"{statistics.mean(every_node):.1%} |"
        )
    print()
    print(f"Profiling failed (noted) for {notes} measurements.")
    print()
    print("Unmatched time by runtime operator (share of all profiled time):")
    for op, ms in unmatched.most_common(8):
        print(f"- {op}: {ms / total_ms:.2%}" if total_ms else f"- {op}")


if __name__ == "__main__":
    main()
