"""Fill the raw-feature cache of a store's measured models, a few of each family in turn.

``load_records`` reads a model's raw features from the cache, and otherwise rebuilds the
graph: for a TFLite zoo family that means exporting the model again with TensorFlow's
int8 converter (2-15 s a model on this machine), which makes the first training run on
a fresh campaign take hours. This script does that work ahead, in the background and
resumably (a cached model is skipped), taking ``--chunk`` models of each family in turn
so that every family has some before any has all. With ``--follow SOURCE`` it copies the
SQLite database SOURCE (a consistent snapshot through SQLite's backup API, read only)
to ``--db`` before each round, so it keeps up with a campaign still writing SOURCE.

Usage:
    nice -n 10 taskset -c 0 python scripts/cache_features.py --db /tmp/perfsage.db \\
        --follow /work/campaign/edge.db -f cnn-kws,cnn-cifar10,vit-cifar100,cnn-imagenet
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

from nnlat.datasets.training import cache_path, cache_raw, default_cache_dir, graph_of
from nnlat.store import Store


def snapshot(source: Path, target: Path) -> None:
    """Copy the SQLite database ``source`` to ``target`` consistently, reading only."""
    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    partial = target.with_suffix(".partial")
    writer = sqlite3.connect(partial)
    with writer:
        reader.backup(writer)
    writer.close()
    reader.close()
    partial.replace(target)


def cache_round(
    db: Path,
    families: list[str],
    chunk: int,
    cache_dir: Path,
    platform: str | None = None,
    reverse: bool = False,
    offset: int = 0,
) -> int:
    """Cache up to ``chunk`` uncached models of each family (measured on ``platform``, if
    given; last measured first with ``reverse``; from the ``offset``-th measured model on);
    return how many were cached."""
    done = 0
    with Store.open(f"sqlite:///{db}") as store:
        for family in families:
            measured = store.list_measurements(platform, family=family)[offset:]
            todo = [
                m
                for m in (reversed(measured) if reverse else measured)
                if not cache_path(cache_dir, m.graph_hash, dict(m.input_shapes)).exists()
            ][:chunk]
            for measurement in todo:
                shapes = dict(measurement.input_shapes)
                if cache_path(cache_dir, measurement.graph_hash, shapes).exists():
                    continue  # another process (--reverse on the other core) got there first
                model = store.get_model(measurement.graph_hash)
                if model is None:
                    continue
                start = time.perf_counter()
                try:
                    cache_raw(cache_dir, measurement.graph_hash, shapes, graph_of(model, shapes))
                except Exception as error:
                    print(f"{family} {measurement.graph_hash}: {error}", file=sys.stderr)
                    continue
                done += 1
                print(
                    f"{family} {measurement.graph_hash} {time.perf_counter() - start:.1f} s",
                    flush=True,
                )
    return done


def main() -> None:
    """Parse the options; run rounds until nothing is left (and, following, nothing new)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="SQLite file to read.")
    parser.add_argument("--follow", type=Path, help="Snapshot this SQLite file to --db first.")
    parser.add_argument("-f", "--families", required=True, help="Comma-separated families.")
    parser.add_argument(
        "--platform", help="Only models measured on this platform (e.g. those with every target)."
    )
    parser.add_argument("--chunk", type=int, default=50, help="Models per family per round.")
    parser.add_argument("--idle-rounds", type=int, default=6, help="Stop after this many empty.")
    parser.add_argument(
        "--reverse",
        action="store_true",
        help="Last measured first: a second process on another core meets the first midway.",
    )
    parser.add_argument(
        "--offset",
        type=int,
        default=0,
        help="Skip the first OFFSET measured models: a second process on another core starts"
        " midway through the same order.",
    )
    args = parser.parse_args()
    families = [f for f in args.families.split(",") if f]
    cache_dir = default_cache_dir()
    idle = 0
    while idle < args.idle_rounds:
        if args.follow is not None:
            snapshot(args.follow, args.db)
        cached = cache_round(
            args.db,
            families,
            args.chunk,
            cache_dir,
            args.platform,
            reverse=args.reverse,
            offset=args.offset,
        )
        idle = 0 if cached else idle + 1
        if not cached:
            time.sleep(60 if args.follow is not None else 0)


if __name__ == "__main__":
    main()
