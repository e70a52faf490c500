"""How many operators: the training records of a platform against the held-out sets' files.

Run (after ``python scripts/fetch_heldout.py --set N`` for the sets named):

    python scripts/node_count_coverage.py --platform epyc-ort1.32-fp32-t1 --sets 4,5,6 \\
        data/epyc-ort132.jsonl.gz data/corpus-epyc.jsonl.gz data/tiny-heads-epyc.jsonl.gz \\
        data/dense-large-epyc.jsonl.gz [--cache DIR]

Prints, per bin of operator count (nnlat's ``nodes``: operators, sub-graphs included),
how many training records of the platform and how many held-out files fall in it, then
each held-out file of 1,000 operators or more with the shipped predictor's error where a
set's ``judge.md`` has it. It reads the held-out files' graphs, nothing is timed or
predicted: run it on sets that have had their look (a set kept for one would be seen).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from nnlat.graph import load
from nnlat.graph.summary import summarize

sys.path.insert(0, str(Path(__file__).parent))
from fetch_heldout import DEFAULT_CACHE, SETS
from measure_heldout import SHAPES

BINS = (0, 100, 300, 1000, 3000)
REPORTS = Path("reports/realworld")


def bin_of(nodes: int) -> str:
    """The bin label of an operator count.

    Example:
        >>> bin_of(50), bin_of(1000), bin_of(10_000)
        ('< 100', '1000-2999', '>= 3000')
    """
    if nodes >= BINS[-1]:
        return f">= {BINS[-1]}"
    upper = next(b for b in BINS if b > nodes)
    lower = BINS[BINS.index(upper) - 1]
    return f"< {upper}" if lower == 0 else f"{lower}-{upper - 1}"


def training_nodes(paths: Iterable[Path], platform: str) -> list[int]:
    """Operator counts of the records with an ok measurement on ``platform``."""
    counts = []
    for path in paths:
        with gzip.open(path, "rt") as f:
            for line in f:
                if not line.startswith('{"graph_hash"'):
                    continue  # the archive's header
                record = json.loads(line)
                if any(
                    m["platform"] == platform and m["status"] == "ok"
                    for m in record["measurements"]
                ):
                    counts.append(record["nodes"])
    return counts


def judged_errors(heldout_set: int) -> dict[str, str]:
    """File name → the first predictor's error in the set's ``judge.md`` (empty if none)."""
    judge = REPORTS / f"set{heldout_set}" / "judge.md"
    if not judge.exists():
        return {}
    errors = {}
    for line in judge.read_text().splitlines():
        match = re.match(r"\| (\S+) \| [\d.]+ \| [\d.e-]+ \(([+-]\d+%)\)", line)
        if match:
            errors[match.group(1)] = match.group(2)
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+", type=Path, help="nnlat archive files")
    parser.add_argument("--platform", default="epyc-ort1.32-fp32-t1")
    parser.add_argument("--sets", default="4,5,6", help="held-out sets that had their look")
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
    )
    args = parser.parse_args()

    train = Counter(bin_of(n) for n in training_nodes(args.records, args.platform))
    heldout: Counter[str] = Counter()
    large = []
    for heldout_set in (int(s) for s in args.sets.split(",")):
        errors = judged_errors(heldout_set)
        for entry in SETS[heldout_set]:
            graph = load(
                args.cache / entry.relative_path(),
                input_shapes=SHAPES[heldout_set].get(entry.name),
            )
            nodes = summarize(graph).nodes
            heldout[bin_of(nodes)] += 1
            if nodes >= 1000:
                large.append((heldout_set, entry.name, nodes, errors.get(entry.name, "–")))

    labels = [bin_of(b) for b in BINS]
    print(f"| operators | training records ({args.platform}) | held-out files (sets {args.sets}) |")
    print("|---|---|---|")
    for label in labels:
        print(f"| {label} | {train[label]} | {heldout[label]} |")
    print(f"| all | {sum(train.values())} | {sum(heldout.values())} |\n")
    print("| set | held-out file of 1,000 operators or more | operators | shipped error |")
    print("|---|---|---|---|")
    for heldout_set, name, nodes, error in sorted(large, key=lambda row: -row[2]):
        print(f"| {heldout_set} | {name} | {nodes} | {error} |")


if __name__ == "__main__":
    main()
