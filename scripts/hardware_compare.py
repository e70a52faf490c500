"""Two machines under one platform name: the same models' latencies, side by side.

Reads the reference measurements from nnlat archive files and this machine's from a
measurement database (the same zoo and corpus recipes, so the same graph hashes), pairs
them by graph hash and writes the ratio per family, with each side's hardware
fingerprint, to ``OUT/README.md`` and the pairs to ``OUT/pairs.csv``.

Usage:
    DB=sqlite:////work/campaign/vmcheck.db LOG=/work/campaign/vmcheck.log FIFO=1 \\
        scripts/corpus_campaign.sh resnet:40 mobilenetv2:40 vgg:40 vit:40 tinynet:60 \\
        hf-text:60 det-head:40
    python scripts/hardware_compare.py --db sqlite:////work/campaign/vmcheck.db \\
        --out reports/realworld/hardware \\
        data/epyc-ort132-profiles.jsonl.gz data/corpus-epyc.jsonl.gz
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from nnlat.store import Store


def reference(paths: list[Path], platform: str) -> dict[str, tuple[str, float, str]]:
    """``graph hash → (family, median ms, fingerprint)`` of the archives' ok measurements."""
    found = {}
    for path in paths:
        with gzip.open(path, "rt") as lines:
            for line in lines:
                model = json.loads(line)
                for m in model.get("measurements", []):
                    if m.get("platform") == platform and m.get("status") == "ok":
                        fingerprint = (m.get("environment") or {}).get("hardware_fingerprint", "?")
                        found[model["graph_hash"]] = (
                            model["family"],
                            m["stats"]["median_ms"],
                            fingerprint,
                        )
    return found


def quantile(values: list[float], share: float) -> float:
    """The ``share`` quantile of sorted ``values`` (nearest rank below)."""
    return values[min(len(values) - 1, int(share * len(values)))]


def scaled_from_shots(pairs: list[tuple[float, float]], draws: int = 200) -> list[str]:
    """How well the reference latencies, times one scale learned from k models measured
    here (the median ratio of k random pairs), predict the other models here."""
    lines = [
        "The reference latency times one scale, learned from k models measured here (the",
        f"median of their ratios; {draws} random draws of the k, the rest predicted):",
        "",
        "| k | MAPE | within 10 % | within 25 % |",
        "|---|---|---|---|",
    ]
    rng = random.Random(0)
    for k in (0, 1, 3, 10):
        errors = []
        for _ in range(draws):
            shots = rng.sample(range(len(pairs)), k)
            scale = statistics.median(pairs[i][1] / pairs[i][0] for i in shots) if k else 1.0
            rest = set(range(len(pairs))) - set(shots)
            errors += [abs(pairs[i][0] * scale / pairs[i][1] - 1) for i in rest]
        lines.append(
            f"| {k} | {100 * statistics.mean(errors):.1f} % | "
            f"{100 * sum(e <= 0.1 for e in errors) / len(errors):.0f} % | "
            f"{100 * sum(e <= 0.25 for e in errors) / len(errors):.0f} % |"
        )
    return lines


def main() -> None:
    """Pair, write the table and the pairs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archives", type=Path, nargs="+", help="the reference data files")
    parser.add_argument("--db", required=True, help="this machine's measurements")
    parser.add_argument("--platform", default="epyc-ort1.32-fp32-t1")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    ref = reference(args.archives, args.platform)
    pairs = []
    with Store.open(args.db) as store:
        for m in store.list_measurements(args.platform):
            if m.graph_hash in ref and m.stats is not None:
                family, ref_ms, ref_fp = ref[m.graph_hash]
                here_fp = m.environment.get("hardware_fingerprint", "?")
                pairs.append((m.graph_hash, family, ref_ms, m.stats.median_ms, ref_fp, here_fp))
    if not pairs:
        sys.exit("no model of the database is in the reference files")
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "pairs.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(
            ["graph_hash", "family", "reference_ms", "here_ms", "reference_fp", "here_fp"]
        )
        writer.writerows(pairs)
    by_family: dict[str, list[float]] = defaultdict(list)
    for _, family, ref_ms, here_ms, *_ in pairs:
        by_family[family].append(here_ms / ref_ms)
    rows = [*sorted(by_family.items()), ("all", [r for rs in by_family.values() for r in rs])]
    fingerprints = sorted({(p[4], p[5]) for p in pairs})
    lines = [
        f"# One platform name, two machines: `{args.platform}`",
        "",
        f"Command: `python scripts/hardware_compare.py {' '.join(sys.argv[1:])}`",
        "",
        "Fingerprints (reference → here): " + "; ".join(f"`{a}` → `{b}`" for a, b in fingerprints),
        "",
        "| family | models | median ratio (here / reference) | 10 % / 90 % quantiles |",
        "|---|---|---|---|",
    ]
    for family, ratios in rows:
        ratios = sorted(ratios)
        lines.append(
            f"| {family} | {len(ratios)} | {statistics.median(ratios):.2f} | "
            f"{quantile(ratios, 0.1):.2f} / {quantile(ratios, 0.9):.2f} |"
        )
    lines += ["", *scaled_from_shots([(p[2], p[3]) for p in pairs])]
    (args.out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
