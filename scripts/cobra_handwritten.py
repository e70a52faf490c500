"""Issue 32's third check: hand-written modules that are not ResNet-like, predicted from
their source by a COBRA model and timed as written.

    R="chrt -f 1 taskset -c 1 env PYTHONPATH=src OMP_NUM_THREADS=1"
    $R python scripts/cobra_handwritten.py --model src/nnlat/predictor/pretrained/cobra \\
        --platform epyc-torch2.13-fp32-t1 --host-check 30 --out reports/cobra/handwritten.md

The modules are in ``src/nnlat/studies/handwritten_models.py``. Each row says whether the
prediction is within 25 % of the measured latency, and whether the model said the code
lies outside what it learned (``in_domain`` false, with its notes): the target holds for a
module when either is true.

A COBRA model predicts the host its networks were timed on. ``--host-check N`` times the
first N test networks of its study (never trained on) here too: the median ratio of their
latency here to their recorded latency is the change of host, and each module's error is
also given after that one factor, so that the model's error and the host's are apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from nnlat.datasets.cobra import NETWORK_SPEC, PLATFORM, read_records
from nnlat.measure.runner import measure
from nnlat.predictor.code.api import predict_code
from nnlat.studies.cobra import network_split
from nnlat.zoo.cobra import SOURCES
from nnlat.zoo.cobra.networks import CLASS_NAME

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "src" / "nnlat" / "studies" / "handwritten_models.py"
# (class, input shape, constructor arguments): sizes a developer might pick on a CPU.
CASES = [
    ("MobileNet", (1, 3, 224, 224), {}),
    ("MobileNet", (1, 3, 128, 128), {"width": 0.5}),
    ("TransformerEncoder", (1, 128, 256), {}),
    ("TransformerEncoder", (1, 64, 128), {"dim": 128, "heads": 2, "depth": 2, "hidden": 512}),
    ("LSTMTagger", (1, 50, 128), {}),
    ("LSTMTagger", (1, 20, 64), {"dim": 64, "hidden": 64, "layers": 1}),
]


def timed(source: str, name: str, shape: tuple, init: dict, platform: str) -> float:
    """The median latency (ms) of class ``name`` of ``source``, built and timed here."""
    config = {"source": source, "class": name, "input": list(shape), "init": init}
    measured = measure(SOURCES.model(config), platform, NETWORK_SPEC)
    if measured.status != "ok" or measured.stats is None:
        raise SystemExit(f"{name}: measurement {measured.status}: {measured.error}")
    return measured.stats.median_ms


def host_ratio(count: int, platform: str) -> tuple[float, list[float]]:
    """Median (here / recorded) latency of the study's first ``count`` test networks."""
    records = read_records(ROOT / "data" / "cobra" / "networks.jsonl.gz")
    test = network_split(len(records))[2]
    ratios = []
    for i in test[:count]:
        record = records[i]
        size = record["config"]["resolution"]
        here = timed(record["source"], CLASS_NAME, (1, 3, size, size), {}, platform)
        ratios.append(here / record["latency_ms"])
        print(json.dumps({"network": i, "here_ms": here, "recorded_ms": record["latency_ms"]}))
    return float(np.median(ratios)), ratios


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a saved COBRA model")
    parser.add_argument("--platform", default=PLATFORM)
    parser.add_argument("--out", type=Path, help="write the Markdown table here")
    parser.add_argument(
        "--host-check", type=int, default=0, help="time N of the study's test networks here"
    )
    args = parser.parse_args(argv)
    ratio, ratios = host_ratio(args.host_check, args.platform) if args.host_check else (1.0, [])
    source = MODELS.read_text()
    # Relative to where the command runs, so that the notes name the file as the user does.
    models = MODELS.relative_to(Path.cwd()) if MODELS.is_relative_to(Path.cwd()) else MODELS
    rows = []
    for name, shape, init in CASES:
        predicted = predict_code(f"{models}::{name}", {"x": shape}, init, model=args.model)
        truth = timed(source, name, shape, init, args.platform)
        error = predicted.latency_ms / truth - 1.0
        rows.append((name, shape, init, predicted, truth, error))
        print(
            json.dumps(
                {
                    "class": name,
                    "init": init,
                    "measured_ms": truth,
                    "predicted_ms": predicted.latency_ms,
                    "error": error,
                    "error_after_host_ratio": predicted.latency_ms * ratio / truth - 1.0,
                    "in_domain": predicted.in_domain,
                }
            ),
            flush=True,
        )
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        "# Hand-written modules, predicted from source and timed (issue 32)",
        "",
        f"Command: `python scripts/cobra_handwritten.py {' '.join(argv)}` ({when}).",
        "",
        f"Platform `{args.platform}`; COBRA model `{args.model}`.",
        "",
    ]
    if ratios:
        lines += [
            f"Host check: {len(ratios)} test networks of the COBRA study timed here take "
            f"{ratio:.3f}× their recorded latency (median; range {min(ratios):.3f}–"
            f"{max(ratios):.3f}). 'after host' multiplies each prediction by that ratio.",
            "",
        ]
    lines += [
        "| module | input | arguments | layers | measured ms | predicted ms | error | "
        "error after host | in domain | check |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, shape, init, predicted, truth, error in rows:
        after = predicted.latency_ms * ratio / truth - 1.0
        within = abs(after) <= 0.25
        check = "within 25 %" if within else ("flagged" if not predicted.in_domain else "MISSED")
        arguments = ", ".join(f"{k}={v}" for k, v in init.items()) or "defaults"
        lines.append(
            f"| {name} | {'x'.join(map(str, shape))} | {arguments} | {predicted.layers} | "
            f"{truth:.3f} | {predicted.latency_ms:.3f} | {error * 100:+.1f} % | "
            f"{after * 100:+.1f} % | {'yes' if predicted.in_domain else 'no'} | {check} |"
        )
    lines += ["", "Notes the model gave (out of domain):", ""]
    for name, shape, _, predicted, _, _ in rows:
        for note in predicted.notes:
            lines.append(f"- {name} {'x'.join(map(str, shape))}: {note}")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main(sys.argv[1:])
