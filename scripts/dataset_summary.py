"""Report: what a measured dataset holds, per family and platform.

Run:  python scripts/dataset_summary.py --db sqlite:///campaign.db [--out FILE.md]

Prints (or writes) a Markdown table: ok / failed results per (family, platform), the
median latency range, how many results met the confidence target and how many were
flagged unstable, and the campaign's measuring span (first to last result).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from nnlat.store import Store


def summary_lines(store: Store) -> list[str]:
    """The Markdown table of a store's measurements."""
    cells: dict[tuple[str, str], list] = defaultdict(list)  # type: ignore[type-arg]
    families: dict[str, str] = {}
    measurements = store.list_measurements(status=None)
    for m in measurements:
        if m.graph_hash not in families:
            model = store.get_model(m.graph_hash)
            families[m.graph_hash] = (model.family if model else None) or "unknown"
        cells[families[m.graph_hash], m.platform].append(m)
    lines = [
        "| family | platform | ok | failed | median ms: min / median / max "
        "| CI target met | unstable |",
        "|---|---|---|---|---|---|---|",
    ]
    for (family, platform), found in sorted(cells.items()):
        ok = [m for m in found if m.status == "ok" and m.stats is not None]
        medians = [m.stats.median_ms for m in ok]  # type: ignore[union-attr]
        spread = (
            f"{min(medians):.2f} / {statistics.median(medians):.2f} / {max(medians):.2f}"
            if medians
            else "–"
        )
        met = sum(m.stop_reason == "ci" for m in ok)
        unstable = sum(not m.stats.stable for m in ok)  # type: ignore[union-attr]
        lines.append(
            f"| {family} | {platform} | {len(ok)} | {len(found) - len(ok)} | {spread} | "
            f"{met} | {unstable} |"
        )
    total_ok = sum(m.status == "ok" for m in measurements)
    times = sorted(m.created_at for m in measurements)
    lines += [
        "",
        f"{len(families)} models, {len(measurements)} results ({total_ok} ok).",
    ]
    if times:
        hours = (times[-1] - times[0]).total_seconds() / 3600
        lines.append(
            f"Measured from {times[0]:%Y-%m-%d %H:%M} to {times[-1]:%H:%M} UTC ({hours:.2f} h)."
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True, help="database URL")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with Store.open(args.db) as store:
        text = "\n".join(summary_lines(store)) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
