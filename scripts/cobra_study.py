"""Run the COBRA study (nnlat.studies.cobra) on data/cobra/ and write reports/cobra/.

    nice -n 10 taskset -c 0 env PYTHONPATH=src python scripts/cobra_study.py

Resumable: what reports/cobra/runs/ holds is not trained again (delete it after the
campaigns grow, so that the split and the encoders follow the new data).

Cost: the encoders dominate. At dev scale (240 training layers) an epoch took ~20 s on a
busy shared core; 50,000 layers are ~200x that per epoch, so the full run wants a GPU
(pre-training uses CUDA when there is one) or fewer ``--encoder-epochs``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import replace
from pathlib import Path

from nnlat.predictor.code.pretraining import PretrainSettings
from nnlat.studies.cobra import CobraStudyConfig, draw_figures, render, run

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "cobra")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "cobra")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--encoder-epochs", type=int, default=40)
    parser.add_argument("--gcn-epochs", type=int, default=300)
    parser.add_argument("--scale-note", default="")
    parser.add_argument(
        "--max-layers", type=int, help="only the first N layers of the file (default: all)"
    )
    args = parser.parse_args(argv)
    config = CobraStudyConfig(
        data_dir=args.data,
        results_dir=args.out / "runs",
        seeds=tuple(args.seeds),
        max_layers=args.max_layers,
        pretrain=PretrainSettings(epochs=args.encoder_epochs),
        command="nice -n 10 taskset -c 0 env PYTHONPATH=src python scripts/cobra_study.py "
        + shlex.join(argv),
        scale_note=args.scale_note,
    )
    config = replace(config, gcn=config.gcn.model_copy(update={"epochs": args.gcn_epochs}))
    results = run(config, on_progress=lambda text: print(text, flush=True))
    (args.out / "README.md").write_text(render(results))
    draw_figures(results, args.out)
    print((args.out / "README.md").read_text())


if __name__ == "__main__":
    main(sys.argv[1:])
