"""Check a held-out set without timing it: it loads in nnlat, runs in onnxruntime, is new.

Run (after ``python scripts/fetch_heldout.py --set N`` for every set, into one cache):

    python scripts/check_heldout.py --set 6 [--cache DIR] [--data data] [--db URL ...]

For each file of the set it prints the graph hash (nnlat's, at the input sizes of
``scripts/measure_heldout.py``), the output shapes of one onnxruntime run on seeded random
inputs, and the first file or model with the same graph hash: a file of an earlier set, an
earlier file of this set, or a model of the training data (the records under ``--data``
and the models of each ``--db``). Nothing is timed and no predictor runs, so a set kept
for a single look stays unseen. A file nnlat refuses still runs in onnxruntime, on inputs
of the sizes given, so a loader bug shows as one.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import onnxruntime as ort

from nnlat.errors import NnlatError
from nnlat.graph import graph_key, load
from nnlat.measure.inputs import random_inputs
from nnlat.store import Store

sys.path.insert(0, str(Path(__file__).parent))
from fetch_heldout import SETS, Heldout, add_set_arguments
from measure_heldout import INPUT_VALUES, SHAPES


def training_hashes(data: Path, urls: Iterable[str] = ()) -> dict[str, str]:
    """Graph hash → ``file:family`` of every model in the records under ``data`` and the dbs.

    Example:
        >>> training_hashes(Path("no-such-folder"))
        {}
    """
    hashes: dict[str, str] = {}
    for path in sorted(data.rglob("*.jsonl.gz")):
        with gzip.open(path, "rt") as f:
            for line in f:
                if line.startswith('{"graph_hash"'):  # a model record, not the header
                    record = json.loads(line)
                    hashes.setdefault(record["graph_hash"], f"{path.name}:{record['family']}")
    for url in urls:
        with Store.open(url) as store:
            for model in store.list_models():
                hashes.setdefault(model.graph_hash, f"{url}:{model.family}")
    return hashes


def graph_hash(path: Path, entry: Heldout) -> str:
    """The file's graph hash at its set's input sizes."""
    return graph_key(load(path, input_shapes=SHAPES[entry.heldout_set].get(entry.name))).digest


def run_once(path: Path, entry: Heldout) -> list[tuple[int, ...]]:
    """Output shapes of one single-threaded onnxruntime run on seeded random inputs.

    The inputs are nnlat's (:func:`random_inputs` of the loaded graph, with
    ``INPUT_VALUES``); where nnlat refuses the file, float and integer inputs of the listed
    sizes (a dynamic dimension not listed: 1).
    """
    shapes = SHAPES[entry.heldout_set].get(entry.name, {})
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    try:
        feeds = random_inputs(load(path, input_shapes=shapes), 0)
    except NnlatError:  # refused: fall back to the declared inputs
        rng = np.random.default_rng(0)
        feeds = {}
        for spec in session.get_inputs():
            shape = shapes.get(spec.name) or [d if isinstance(d, int) else 1 for d in spec.shape]
            integer = "int" in spec.type
            feeds[spec.name] = (
                np.zeros(shape, np.int64) if integer else rng.random(shape, np.float32)
            )
    feeds.update(INPUT_VALUES.get(entry.name, {}))
    return [np.asarray(out).shape for out in session.run(None, feeds)]


def check(heldout_set: int, cache: Path, known: dict[str, str]) -> None:
    """Print one line per file of ``heldout_set``: graph hash, outputs, first same graph."""
    seen = dict(known)
    for earlier in sorted(s for s in SETS if s < heldout_set):
        for entry in SETS[earlier]:
            seen.setdefault(graph_hash(cache / entry.relative_path(), entry), entry.name)
    for entry in SETS[heldout_set]:
        path = cache / entry.relative_path()
        try:
            digest = graph_hash(path, entry)
            same = seen.setdefault(digest, entry.name)
            graph = f"{digest} {'new' if same == entry.name else 'same graph as ' + same}"
        except NnlatError as error:  # reported, and the run goes on
            graph = f"nnlat refuses it: {type(error).__name__}: {error}"
        try:
            ran = f"onnxruntime ok, outputs {run_once(path, entry)}"
        except Exception as error:  # any onnxruntime failure is the finding
            ran = f"onnxruntime fails: {error}"
        print(f"{entry.name}\n    {graph}\n    {ran}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_set_arguments(parser, default_set=6)  # the set kept for the next look
    parser.add_argument("--data", type=Path, default=Path("data"), help="training records")
    parser.add_argument("--db", action="append", default=[], help="training database URL")
    args = parser.parse_args()
    known = training_hashes(args.data, args.db)
    print(f"{len(known)} graph hashes in the training data", flush=True)
    check(args.heldout_set, args.cache, known)


if __name__ == "__main__":
    main()
