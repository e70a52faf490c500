"""PerfSAGE's readout on one design space: the paper's max against sum and max-sum.

A max readout tells which node kinds a graph holds, not how many or how large: on a
space whose latency is a sum of layer costs with one slow kernel (cnn-kws on LiteRT,
``reports/perfsage/kws_kernel_cliff.md``) the sum may matter. This runs Table 6's
specialised and generalised PerfSAGE on ``--space`` once per readout, each into
``OUT/<readout>/`` (results.jsonl and README.md as ``nnlat eval perfsage`` writes them),
with the report's widths (``hidden`` 64) and the same split, seed and selection rule.

Usage:
    taskset -c 1 python scripts/perfsage_readout.py --db sqlite:///kws.db --space cnn-kws \\
        --targets latency --per-space 1000 --out reports/perfsage/runs/kws-readout
"""

from __future__ import annotations

import argparse
from pathlib import Path

from nnlat.datasets.training import default_cache_dir, load_records
from nnlat.predictor.training import TrainSettings
from nnlat.store import Store
from nnlat.studies import perfsage as study

READOUTS = ("max", "sum", "max-sum")


def main() -> None:
    """One Table-6 run per readout."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--space", default="cnn-kws")
    parser.add_argument("--targets", default="latency")
    parser.add_argument("--per-space", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--readouts", default=",".join(READOUTS))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    with Store.open(args.db) as store:
        records = load_records(
            store, None, (args.space,), cache_dir=default_cache_dir(), cached_only=True
        )
    for readout in args.readouts.split(","):
        out = args.out / readout
        out.mkdir(parents=True, exist_ok=True)
        config = study.PerfsageConfig(
            spaces=(args.space,),
            targets=tuple(args.targets.split(",")),
            settings=TrainSettings(epochs=args.epochs, median_head_selection=True),
            config={"hidden": 64, "readout": readout},
            per_space=args.per_space,
            parts=("table6",),
            results_path=out / "results.jsonl",
            methods=("perfsage",),
            command=f"scripts/perfsage_readout.py --space {args.space} --readouts {readout}",
        )
        results = study.run(config, records)
        (out / "README.md").write_text(study.render(results))
        for row in results.rows:
            print(readout, row.mode, row.platform, row.target, f"{100 * row.mape:.1f} %")


if __name__ == "__main__":
    main()
