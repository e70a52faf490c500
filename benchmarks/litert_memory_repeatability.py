"""Benchmark: is LiteRT's memory (the heap the interpreter holds) the same in a fresh process?

Run:  taskset -c 0 python benchmarks/litert_memory_repeatability.py --db sqlite:///edge-litert.db
      [--per-space 10] [--platform xeon-litert2.3-int8-t1]

Takes the first ``--per-space`` measured models of each family in the store on
``--platform`` (zoo models: the ``.tflite`` is regenerated from the stored recipe), and
measures each again with ``nnlat query FILE -p PLATFORM --refresh --json`` in a new
interpreter and a throw-away database. Prints, per family, the median and largest
relative difference of the new memory from the stored one, and the same for latency
(which, unlike memory, moves with the host's load). The memory method must be
``heap_freed_on_close`` on both sides: a stored result of another method is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from nnlat.store import Store
from nnlat.zoo import get_family

METHOD = "heap_freed_on_close"


def query_in_fresh_process(path: Path, platform: str, db: str) -> dict:
    """``nnlat query --refresh --json`` of one file, in a new interpreter."""
    command = [sys.executable, "-m", "nnlat", "query", str(path), "-p", platform]
    command += ["--refresh", "--json"]
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "NNLAT_DB_URL": db}
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> None:
    """Measure the first models of each family again and compare."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="the store holding the campaign")
    parser.add_argument("--platform", default="xeon-litert2.3-int8-t1")
    parser.add_argument("--per-space", type=int, default=10)
    args = parser.parse_args()
    store = Store.open(args.db)
    taken: dict[str, list] = defaultdict(list)
    for m in store.list_measurements(platform=args.platform):
        model = store.get_model(m.graph_hash)
        if model is None or model.zoo_spec is None or m.environment.get("memory") != METHOD:
            continue
        family = model.zoo_spec["family"]
        if len(taken[family]) < args.per_space:
            taken[family].append((model, m))
    print("| family | models | memory: median / largest difference | latency: median / largest |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'again.sqlite'}"
        for family, pairs in taken.items():
            memory, latency = [], []
            for model, stored in pairs:
                spec = model.zoo_spec
                path = Path(tmp) / f"{model.graph_hash}.tflite"
                path.write_bytes(get_family(spec["family"]).model(spec["config"]).to_tflite())
                again = query_in_fresh_process(path, args.platform, db)
                if again["memory_method"] != METHOD:
                    raise SystemExit(f"memory method {again['memory_method']!r}, not {METHOD}")
                memory.append(again["peak_memory_bytes"] / stored.peak_memory_bytes - 1)
                latency.append(again["latency_ms"]["median"] / stored.stats.median_ms - 1)
            print(
                f"| {family} | {len(pairs)} | "
                f"{statistics.median(map(abs, memory)) * 100:.2f} % / "
                f"{max(memory, key=abs) * 100:+.2f} % | "
                f"{statistics.median(map(abs, latency)) * 100:.1f} % / "
                f"{max(latency, key=abs) * 100:+.1f} % |",
                flush=True,
            )


if __name__ == "__main__":
    main()
