"""PerfSAGE beyond its four design spaces: real architectures on the Vela NPU.

Real architectures from their Keras definitions (``keras.applications``, ``weights=None``:
random weights, nothing downloaded) at small input sizes, 10 classes, exported fully int8
by TensorFlow's post-training quantisation with seeded random calibration data
(:func:`nnlat.zoo.edge.tflite_export.export_int8`, as PerfSAGE's §3.1 does its models).
Each is measured on the Vela NPU platform (deterministic: Vela's estimate) and predicted
by a saved generalised PerfSAGE predictor (``nnlat eval perfsage --save-generalised``);
the report gives each model's latency and SRAM error and their MAPE.

Usage (two steps; the first needs no predictor):
    python scripts/perfsage_real_archs.py measure --out /work/campaign/perfsage/real
    python scripts/perfsage_real_archs.py report --out /work/campaign/perfsage/real \\
        --predictor /work/campaign/perfsage/generalised-500 \\
        --report reports/perfsage/real_architectures.md

``--predictor`` takes several saved predictors (one training at several seeds): each
prediction is then their geometric mean.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

NPU = "u55_128.ethos_u55_high_end_embedded.shared_sram-vela5.2-int8"
CLASSES = 10
RESULTS = "measured.jsonl"


def _app(name: str, side: int, **kwargs: object) -> tuple[str, Callable[[], object], int]:
    """(label, builder, input side) of ``keras.applications.<name>`` at ``side`` pixels."""

    def build() -> object:
        import keras

        constructor = getattr(keras.applications, name)
        return constructor(weights=None, input_shape=(side, side, 3), classes=CLASSES, **kwargs)

    extra = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return f"{name}({extra})@{side}" if extra else f"{name}@{side}", build, side


# Small inputs keep the conversions to seconds on a shared core; the widths and input
# sizes are the ones the applications accept without weights.
ARCHITECTURES = [
    _app("MobileNet", 96, alpha=0.25),
    _app("MobileNet", 128, alpha=0.5),
    _app("MobileNetV2", 96, alpha=0.35),
    _app("MobileNetV2", 128, alpha=1.0),
    _app("MobileNetV3Small", 96, alpha=0.75, include_preprocessing=False),
    _app("EfficientNetB0", 96),
    _app("ResNet50", 64),
    _app("DenseNet121", 64),
    _app("NASNetMobile", 96),
    _app("InceptionV3", 96),
    _app("Xception", 96),
]


def measure_all(out: Path) -> None:
    """Export and measure every architecture not yet in ``out/measured.jsonl``."""
    from nnlat.graph import load
    from nnlat.graph.hashing import graph_key
    from nnlat.measure.runner import measure
    from nnlat.zoo.edge.tflite_export import export_int8

    out.mkdir(parents=True, exist_ok=True)
    path = out / RESULTS
    done = (
        {json.loads(line)["name"] for line in path.read_text().splitlines()}
        if path.exists()
        else set()
    )
    for name, build, side in ARCHITECTURES:
        if name in done:
            continue
        start = time.perf_counter()
        try:
            flatbuffer = export_int8(build, (1, side, side, 3))
        except Exception as error:
            print(f"{name}: export failed: {error}", file=sys.stderr, flush=True)
            continue
        file = (
            out
            / f"{name.replace('(', '_').replace(')', '').replace(',', '_').replace('=', '')}.tflite"
        )
        file.write_bytes(flatbuffer)
        graph = load(flatbuffer)
        measurement = measure(flatbuffer, NPU)
        row = {
            "name": name,
            "file": file.name,
            "graph_hash": graph_key(graph).digest,
            "nodes": len(graph.nodes),
            "status": measurement.status,
            "error": measurement.error,
            "latency_ms": measurement.stats.median_ms if measurement.stats else None,
            "sram_bytes": measurement.npu.sram_used_bytes if measurement.npu else None,
            "cpu_operators": list(measurement.npu.cpu_operators) if measurement.npu else None,
            "seconds": round(time.perf_counter() - start, 1),
        }
        with path.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


def report(out: Path, predictor_dirs: list[Path], target: Path) -> None:
    """Predict every measured architecture's NPU latency and SRAM; write the report.

    With several predictors (the same training at several seeds) each prediction is the
    geometric mean of theirs, as the studies' seed ensembles do.
    """
    from nnlat.features import raw_features
    from nnlat.graph import load
    from nnlat.predictor.predictor import Predictor

    rows = [json.loads(line) for line in (out / RESULTS).read_text().splitlines() if line]
    rows = [r for r in rows if r["status"] == "ok"]
    raws = [raw_features(load((out / r["file"]).read_bytes())) for r in rows]
    logs = {"latency": [], "memory": []}
    networks = set()
    for directory in predictor_dirs:
        predictor = Predictor.load(directory)
        networks.add(
            {"perfsage": "PerfSAGE", "nnlp": "NNLP"}.get(predictor.network, predictor.network)
        )
        heads = predictor.predict_heads(raws)
        for name, values in logs.items():
            values.append(np.log(heads[(NPU, name)]))
    network = " + ".join(sorted(networks))
    latency, sram = (np.exp(np.mean(logs[name], axis=0)) for name in ("latency", "memory"))
    which = ", ".join(f"`{d}`" for d in predictor_dirs)
    if len(predictor_dirs) > 1:
        which = f"the geometric mean of {len(predictor_dirs)} predictors' ({which})"
    lines = [
        f"# {network} (generalised) on real architectures, Vela NPU",
        "",
        "Made by `scripts/perfsage_real_archs.py` (its docstring has the commands); predictor:"
        f" {which}, a generalised {network} saved by `nnlat eval perfsage"
        " --save-generalised` (which run: the commands in `reports/perfsage/NOTES.md`).",
        f"Platform `{NPU}`. Keras application definitions, random weights, 10 classes, fully"
        " int8 by TensorFlow's converter with random calibration data; none of these graphs is"
        " in the training data.",
        "",
        "| model | nodes | latency (ms) | predicted | error | SRAM (KiB) | predicted | error |",
        "|---|---|---|---|---|---|---|---|",
    ]
    errors_l, errors_s = [], []
    for row, p_l, p_s in zip(rows, latency, sram, strict=True):
        e_l = abs(p_l - row["latency_ms"]) / row["latency_ms"]
        e_s = abs(p_s - row["sram_bytes"]) / row["sram_bytes"]
        errors_l.append(e_l)
        errors_s.append(e_s)
        lines.append(
            f"| {row['name']} | {row['nodes']} | {row['latency_ms']:.3f} | {p_l:.3f} |"
            f" {e_l * 100:.1f} % | {row['sram_bytes'] / 1024:.0f} | {p_s / 1024:.0f} |"
            f" {e_s * 100:.1f} % |"
        )
    lines += [
        "",
        f"MAPE over {len(rows)} architectures: latency {np.mean(errors_l) * 100:.1f} %,"
        f" SRAM {np.mean(errors_s) * 100:.1f} % (target ≤ 10 %).",
        "",
    ]
    target.write_text("\n".join(lines))
    print("\n".join(lines))


def main() -> None:
    """Parse the step and run it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("measure", "report"))
    parser.add_argument("--out", type=Path, required=True, help="Folder of files and results.")
    parser.add_argument(
        "--predictor",
        type=Path,
        nargs="+",
        help="Saved generalised predictor(s) (report); several: their geometric mean.",
    )
    parser.add_argument("--report", type=Path, help="Markdown file to write (report).")
    args = parser.parse_args()
    if args.step == "measure":
        measure_all(args.out)
    else:
        report(args.out, args.predictor, args.report)


if __name__ == "__main__":
    main()
