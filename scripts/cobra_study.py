"""Run the COBRA study (nnlat.studies.cobra) on data/cobra/ and write reports/cobra/.

    nice -n 10 taskset -c 0 env PYTHONPATH=src python scripts/cobra_study.py

Resumable: what reports/cobra/runs/ holds is not trained again (delete it after the
campaigns grow, so that the split and the encoders follow the new data).

Cost on one core: interpreting the 2,000 networks ~10 min, their ONNX export for NNLP
~10–30 min (kept per network in runs/onnx-features/, git-ignored), an encoder epoch ~1 min
per 6,500 layers, a GCN epoch ~15 s: the full run wants a GPU (every training uses CUDA
when there is one) and many cores (``--workers``, by default every core this process may
use when there are 8 or more: the tasks then run in parallel, see
nnlat.studies.cobra_tasks). ``--time-limit`` stops training in time to
write the report of what finished; scripts/cobra_gpu.sh runs it on a lent GPU machine.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from dataclasses import replace
from pathlib import Path

from nnlat.predictor.code.encoder import EncoderConfig
from nnlat.predictor.code.pretraining import PretrainSettings
from nnlat.studies.cobra import (
    METHODS,
    CobraStudyConfig,
    draw_figures,
    interpret_networks,
    render,
    run,
)

ROOT = Path(__file__).resolve().parents[1]
CORES = len(os.sched_getaffinity(0))


def _machine() -> str:
    """Where the study runs, for the report's command line."""
    import torch

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    return f"{CORES} cores, {gpu}"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "cobra")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "cobra")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--encoder-epochs", type=int, default=40)
    parser.add_argument("--gcn-epochs", type=int, default=300)
    parser.add_argument("--scale-note", default="")
    parser.add_argument("--gcn-batch-size", type=int, default=8)
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument(
        "--max-layers", type=int, help="only the first N layers of the file (default: all)"
    )
    parser.add_argument(
        "--max-networks", type=int, help="only the first N networks of the file (default: all)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=CORES if CORES >= 8 else 1,
        help="processes for the tasks (default: every usable core if 8 or more, else 1)",
    )
    parser.add_argument(
        "--time-limit", type=float, help="seconds: stop training then, report what finished"
    )
    parser.add_argument("--vocab-size", type=int, default=2048, help="the tokenizer's vocabulary")
    parser.add_argument(
        "--encoder-batch-size", type=int, default=64, help="snippets per pre-training step"
    )
    parser.add_argument("--encoder-dim", type=int, default=64, help="the encoder's width")
    parser.add_argument("--encoder-layers", type=int, default=4, help="attention blocks")
    parser.add_argument(
        "--encoder-lr-decay", type=float, default=0.95, help="learning-rate factor per epoch"
    )
    parser.add_argument(
        "--encoders",
        nargs="+",
        choices=("with-latency", "without-latency"),
        default=["with-latency", "without-latency"],
        help="which encoders to pre-train (COBRA needs with-latency; Figure 5 both)",
    )
    parser.add_argument(
        "--interpret-only",
        action="store_true",
        help="only interpret the networks into runs/graphs.jsonl.gz (to carry to another torch)",
    )
    args = parser.parse_args(argv)
    config = CobraStudyConfig(
        data_dir=args.data,
        results_dir=args.out / "runs",
        seeds=tuple(args.seeds),
        methods=tuple(args.methods),
        max_layers=args.max_layers,
        max_networks=args.max_networks,
        pretrain=PretrainSettings(
            epochs=args.encoder_epochs,
            batch_size=args.encoder_batch_size,
            lr_decay=args.encoder_lr_decay,
        ),
        # The feed-forward width follows the paper's 2 × width (the default 64 → 128).
        encoder=EncoderConfig(
            vocab_size=0, dim=args.encoder_dim, layers=args.encoder_layers, ffn=2 * args.encoder_dim
        ),
        vocab_size=args.vocab_size,
        command=f"PYTHONPATH=src python scripts/cobra_study.py {shlex.join(argv)} ({_machine()})",
        scale_note=args.scale_note,
        workers=args.workers,
        time_limit_s=args.time_limit,
        encoders=tuple(args.encoders),
    )
    if args.interpret_only:
        count = interpret_networks(config)
        print(f"{count} graphs in {config.results_dir / 'graphs.jsonl.gz'}")
        return
    gcn = {"epochs": args.gcn_epochs, "batch_size": args.gcn_batch_size}
    config = replace(config, gcn=config.gcn.model_copy(update=gcn))
    start = time.monotonic()
    results = run(
        config,
        on_progress=lambda text: print(f"[{time.monotonic() - start:5.0f} s] {text}", flush=True),
    )
    (args.out / "README.md").write_text(render(results))
    draw_figures(results, args.out)
    print((args.out / "README.md").read_text())


if __name__ == "__main__":
    main(sys.argv[1:])
