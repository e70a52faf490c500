"""Check the direct int8 TFLite writer against TensorFlow's converter, model by model.

For ``--per-space`` sampled configurations of each EdgeDLPerf space, export the model both
ways (``ZooModel.to_tflite(converter=...)``) and compare: the operator sequence, the
structural signature of every operator (builtin, version, options, input/output shapes,
types and quantisation layout; ``nnlat.zoo.edge.signature``), the nnlat graph hash,
Vela's estimate on one Ethos-U55 configuration, and that LiteRT loads and runs the
direct file. Export wall times of both paths are recorded (interleaved, one process).

Resumable: one JSON line per model in ``--runs``; rerun to continue. ``--render`` only
rewrites the Markdown summary from the lines.

    nice -n 10 taskset -c 0 python scripts/edge_writer_equivalence.py --per-space 20
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

SPACES = ("cnn-kws", "cnn-cifar10", "vit-cifar100", "cnn-imagenet")
NPU = "u55_128.ethos_u55_high_end_embedded.shared_sram-vela5.2-int8"
SEED_BASE = 280_000  # a stream of configurations apart from the dataset's
RUNS = Path("reports/edge_spaces/runs/writer_equivalence.jsonl")
REPORT = Path("reports/edge_spaces/writer_equivalence.md")
VELA_FIELDS = ("cycles_total", "sram_used_bytes", "off_chip_flash_used_bytes")


def compare(family: str, seed: int) -> dict[str, Any]:
    """Export one sampled configuration both ways and compare everything comparable."""
    import nnlat
    from nnlat.measure.backends.vela import VelaBackend, estimate
    from nnlat.zoo import get_family
    from nnlat.zoo.edge.signature import operator_signatures

    spec = get_family(family)
    model = spec.model(spec.sample(random.Random(SEED_BASE + seed)))
    files, seconds = {}, {}
    for converter in ("tensorflow", "direct"):
        start = time.perf_counter()
        files[converter] = model.to_tflite(converter=converter)
        seconds[converter] = time.perf_counter() - start
    tf, direct = (operator_signatures(files[c]) for c in ("tensorflow", "direct"))
    hashes = {c: nnlat.graph_key(nnlat.load(data)).digest for c, data in files.items()}
    target = VelaBackend()._all()[NPU][1]
    vela = {c: estimate(data, target) for c, data in files.items()}
    return {
        "family": family,
        "seed": seed,
        "config": model.config,
        "operators": len(tf),
        "same_op_sequence": [s[0] for s in tf] == [s[0] for s in direct],
        "same_signature_sequence": tf == direct,
        "same_signatures": Counter(tf) == Counter(direct),
        "hash": hashes,
        "same_hash": hashes["tensorflow"] == hashes["direct"],
        "vela": {c: {f: getattr(e, f) for f in VELA_FIELDS} for c, e in vela.items()},
        "vela_cpu_operators": {c: len(e.cpu_operators) for c, e in vela.items()},
        "litert_output_shape": _run_litert(files["direct"]),
        "bytes": {c: len(data) for c, data in files.items()},
        "export_s": seconds,
    }


def _run_litert(data: bytes) -> list[int]:
    """Invoke the model once on zeros with LiteRT; the output's shape."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_content=data)
    interpreter.allocate_tensors()
    (source,) = interpreter.get_input_details()
    (sink,) = interpreter.get_output_details()
    interpreter.set_tensor(source["index"], np.zeros(source["shape"], source["dtype"]))
    interpreter.invoke()
    return list(interpreter.get_tensor(sink["index"]).shape)


def _relative(a: float, b: float) -> float:
    return abs(a - b) / abs(a) if a else float(a != b)


def render(rows: list[dict[str, Any]]) -> str:
    """The Markdown summary of the per-model lines."""
    lines = [
        "# Direct int8 writer vs TensorFlow's converter",
        "",
        "Command: `nice -n 10 taskset -c 0 python scripts/edge_writer_equivalence.py "
        "--per-space 20` (rows in `runs/writer_equivalence.jsonl`). Each configuration is",
        "exported by both converters (`ZooModel.to_tflite(converter=...)`) and compared.",
        "*signatures*: per operator the builtin, its version, its options and every",
        "input/output's shape, type, constness and quantisation layout (count of scales,",
        "axis) — `nnlat.zoo.edge.signature`. Vela: Ethos-U55-128, High_End_Embedded,",
        f"Shared_Sram (`{NPU}`); max relative difference over the space's models.",
        "",
        "| space | models | same op sequence | same signatures (as multiset) | same graph hash "
        "| Vela cycles (max rel. diff) | Vela SRAM | Vela flash | CPU fallbacks | LiteRT runs |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for family in SPACES:
        mine = [r for r in rows if r["family"] == family]
        if not mine:
            continue
        n = len(mine)
        diffs = {
            f: max(_relative(r["vela"]["tensorflow"][f], r["vela"]["direct"][f]) for r in mine)
            for f in VELA_FIELDS
        }
        fallbacks = sum(sum(r["vela_cpu_operators"].values()) for r in mine)
        lines.append(
            f"| {family} | {n} | {sum(r['same_op_sequence'] for r in mine)}/{n} "
            f"| {sum(r['same_signatures'] for r in mine)}/{n} "
            f"| {sum(r['same_hash'] for r in mine)}/{n} "
            + " ".join(f"| {diffs[f]:.2e}" for f in VELA_FIELDS)
            + f" | {fallbacks} | {sum(bool(r['litert_output_shape']) for r in mine)}/{n} |"
        )
    lines += [
        "",
        "Identical Vela numbers, model by model (cycles, SRAM, flash):",
        "",
        "| space | cycles equal | SRAM equal | flash equal |",
        "|---|---|---|---|",
    ]
    for family in SPACES:
        mine = [r for r in rows if r["family"] == family]
        if mine:
            equal = [
                sum(r["vela"]["tensorflow"][f] == r["vela"]["direct"][f] for r in mine)
                for f in VELA_FIELDS
            ]
            lines.append(f"| {family} | " + " | ".join(f"{e}/{len(mine)}" for e in equal) + " |")
    lines += [
        "",
        "## Export wall time per model",
        "",
        "Median (and max) seconds per model, both converters interleaved in one process on",
        "this shared 2-core machine (load varies; compare within a row).",
        "",
        "| space | models | TensorFlow median s | direct median s | speed-up | TF max s "
        "| direct max s |",
        "|---|---|---|---|---|---|---|",
    ]
    for family in SPACES:
        mine = [r for r in rows if r["family"] == family]
        if not mine:
            continue
        tf = [r["export_s"]["tensorflow"] for r in mine]
        direct = [r["export_s"]["direct"] for r in mine]
        lines.append(
            f"| {family} | {len(mine)} | {statistics.median(tf):.2f} "
            f"| {statistics.median(direct):.3f} "
            f"| {statistics.median(tf) / statistics.median(direct):.0f}× "
            f"| {max(tf):.2f} | {max(direct):.3f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-space", type=int, default=20)
    parser.add_argument("--runs", type=Path, default=RUNS)
    parser.add_argument("--report", type=Path, default=REPORT)
    parser.add_argument("--spaces", nargs="+", default=list(SPACES), choices=SPACES)
    parser.add_argument("--render", action="store_true", help="only rewrite the report")
    args = parser.parse_args()
    rows = (
        [json.loads(line) for line in args.runs.read_text().splitlines()]
        if args.runs.exists()
        else []
    )
    if not args.render:
        done = {(r["family"], r["seed"]) for r in rows}
        args.runs.parent.mkdir(parents=True, exist_ok=True)
        for seed in range(args.per_space):  # spaces interleaved: a stopped run covers all
            for family in args.spaces:
                if (family, seed) in done:
                    continue
                row = compare(family, seed)
                with args.runs.open("a") as sink:
                    sink.write(json.dumps(row, sort_keys=True) + "\n")
                rows.append(row)
                print(family, seed, row["same_hash"], row["same_signatures"], flush=True)
    args.report.write_text(render(rows))


if __name__ == "__main__":
    main()
