"""Run or summarise COBRA's campaigns (nnlat.datasets.cobra) into data/cobra/.

    python scripts/cobra_campaign.py layers -n 50000      # resumable; re-run to continue
    python scripts/cobra_campaign.py networks -n 2000
    python scripts/cobra_campaign.py snippets             # each distinct layer of them, alone
    python scripts/cobra_campaign.py summary               # the tables of data/cobra/README.md

Run it pinned to one quiet core: ``nice -n 10 taskset -c 0 env PYTHONPATH=src python ...``.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from nnlat.datasets.cobra import (
    PLATFORM,
    measure_layers,
    measure_networks,
    measure_snippets,
    read_records,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "cobra"


def _progress(every: int) -> object:
    start, seen = time.perf_counter(), [0]

    def report(record: dict) -> None:
        seen[0] += 1
        if seen[0] % every == 0:
            rate = seen[0] / (time.perf_counter() - start)
            print(f"{seen[0]} measured ({rate:.2f}/s), last {record.get('latency_ms')}", flush=True)

    return report


def _quantiles(values: list[float]) -> str:
    values = sorted(values)
    q = statistics.quantiles(values, n=10) if len(values) > 1 else values * 9
    return f"{values[0]:.3f} / {q[4]:.3f} / {q[8]:.3f} / {values[-1]:.3f}"


def summary() -> None:
    """Markdown tables of what the two files hold."""
    layers = read_records(DATA / "layers.jsonl.gz")
    by_type: dict[str, list[float]] = defaultdict(list)
    failed = 0
    for r in layers:
        if r["status"] == "ok":
            by_type[r["type"]].append(r["latency_ms"])
        else:
            failed += 1
    print("| layer type | ok | median ms: min / median / p90 / max |\n|---|---|---|")
    for kind, values in sorted(by_type.items()):
        print(f"| {kind} | {len(values)} | {_quantiles(values)} |")
    print(f"\n{len(layers)} layers, {failed} not ok.\n")
    networks = read_records(DATA / "networks.jsonl.gz")
    ok = [r["latency_ms"] for r in networks if r["status"] == "ok"]
    hashes = {r["graph_hash"] for r in networks}
    draws = max((r["draw"] for r in networks), default=-1) + 1
    print(f"{len(networks)} networks ({len(hashes)} distinct hashes, {draws} draws), ", end="")
    if ok:
        print(f"{len(ok)} ok; median ms min / median / p90 / max: {_quantiles(ok)}")
    sizes = [len(gzip.compress(r["source"].encode())) for r in networks]
    if sizes:
        print(f"source files: {statistics.mean(sizes):.0f} bytes gzip on average")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("layers", "networks", "snippets", "summary"))
    parser.add_argument("-n", "--count", type=int, default=0)
    parser.add_argument("-p", "--platform", default=PLATFORM)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.what == "summary":
        summary()
        return
    path = DATA / f"{args.what}.jsonl.gz"
    if args.what == "snippets":  # -n: only the first n networks (0: all)
        done = measure_snippets(
            DATA / "networks.jsonl.gz",
            path,
            args.platform,
            seed=args.seed,
            on_record=_progress(50),
            max_networks=args.count or None,
        )
        print(f"snippets: {done} measured now, {len(read_records(path))} in {path}")
        return
    run = measure_layers if args.what == "layers" else measure_networks
    every = 50 if args.what == "layers" else 5
    done = run(path, args.count, args.platform, seed=args.seed, on_record=_progress(every))
    print(f"{args.what}: {done} measured now, {len(read_records(path))} in {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
