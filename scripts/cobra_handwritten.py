"""Issue 32's third check: hand-written modules that are not ResNet-like, predicted from
their source by a COBRA model and timed as written.

    R="chrt -f 1 taskset -c 1 env PYTHONPATH=src OMP_NUM_THREADS=1"
    $R python scripts/cobra_handwritten.py --model reports/cobra/runs/model \\
        --out reports/cobra/handwritten.md

The modules are in ``src/nnlat/studies/handwritten_models.py``. Each row says whether the
prediction is within 25 % of the measured latency, and whether the model said the code
lies outside what it learned (``in_domain`` false, with its notes): the target holds for a
module when either is true.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from nnlat.datasets.cobra import NETWORK_SPEC, PLATFORM
from nnlat.measure.runner import measure
from nnlat.predictor.code.api import predict_code
from nnlat.zoo.cobra import SOURCES

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


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a saved COBRA model")
    parser.add_argument("--platform", default=PLATFORM)
    parser.add_argument("--out", type=Path, help="write the Markdown table here")
    args = parser.parse_args(argv)
    source = MODELS.read_text()
    # Relative to where the command runs, so that the notes name the file as the user does.
    models = MODELS.relative_to(Path.cwd()) if MODELS.is_relative_to(Path.cwd()) else MODELS
    rows = []
    for name, shape, init in CASES:
        predicted = predict_code(f"{models}::{name}", {"x": shape}, init, model=args.model)
        config = {"source": source, "class": name, "input": list(shape), "init": init}
        measured = measure(SOURCES.model(config), args.platform, NETWORK_SPEC)
        if measured.status != "ok" or measured.stats is None:
            raise SystemExit(f"{name}: measurement {measured.status}: {measured.error}")
        truth = measured.stats.median_ms
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
        "| module | input | arguments | layers | measured ms | predicted ms | error | "
        "in domain | check |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, shape, init, predicted, truth, error in rows:
        within = abs(error) <= 0.25
        check = "within 25 %" if within else ("flagged" if not predicted.in_domain else "MISSED")
        arguments = ", ".join(f"{k}={v}" for k, v in init.items()) or "defaults"
        lines.append(
            f"| {name} | {'x'.join(map(str, shape))} | {arguments} | {predicted.layers} | "
            f"{truth:.3f} | {predicted.latency_ms:.3f} | {error * 100:+.1f} % | "
            f"{'yes' if predicted.in_domain else 'no'} | {check} |"
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
