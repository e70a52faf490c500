"""Benchmark: cell graphs from a published table, and one few-shot pre-training epoch.

Run:  taskset -c 0 python benchmarks/cell_graphs.py [--dir data/published] [--epochs 3]

Times, on one core: reading each HELP table and building the cell graph of every
architecture for one device (:func:`nnlat.datasets.cell_graphs.cell_records`), the
NAS-Bench-201 cells (8 nodes) and the FBNet chains (24 nodes); then the epochs of the
few-shot pre-training on NAS-Bench-201 (900 architectures × 12 devices, the settings of
:data:`nnlat.studies.few_shot.PRETRAIN_SETTINGS` capped at ``--epochs``), from which a
full pre-training (early-stopped, typically 50-80 epochs) is estimated.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from nnlat.datasets.cell_graphs import cell_records
from nnlat.datasets.published import PUBLISHED_DIR, read_latency_table
from nnlat.studies.few_shot import PRETRAIN_SETTINGS, pretrain, training_pool

FILES = {"nas-bench-201": "nas-bench-201/help_latency_ms.csv", "fbnet": "fbnet/help_latency_ms.csv"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=PUBLISHED_DIR)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for space, name in FILES.items():
        start = time.perf_counter()
        table = read_latency_table(args.dir / name, space)
        read = time.perf_counter() - start
        records = cell_records(table, table.devices[0].column)
        built = time.perf_counter() - start - read
        print(
            f"{space}: read {len(table.archs)} archs in {read:.2f} s; {len(records)} cell "
            f"graphs of {len(records[0].raw.op_types)} nodes in {built:.2f} s "
            f"({built / len(records) * 1e6:.0f} µs each)"
        )
    table = read_latency_table(args.dir / FILES["nas-bench-201"], "nas-bench-201")
    columns = [d.column for d in table.devices]
    pool = training_pool(table, columns, table, "pixel3")
    epochs: list[float] = []
    last = time.perf_counter()

    def on_epoch(epoch: int, loss: float, valid: float | None) -> None:
        nonlocal last
        epochs.append(time.perf_counter() - last)
        last = time.perf_counter()

    settings = PRETRAIN_SETTINGS.model_copy(update={"epochs": args.epochs, "device": "cpu"})
    start = time.perf_counter()
    pretrain(table, pool, settings=settings, on_epoch=on_epoch)
    total = time.perf_counter() - start
    per_epoch = sum(epochs[1:]) / max(len(epochs) - 1, 1)
    print(
        f"pre-training on {len(pool)} devices × 900 archs: {args.epochs} epochs in {total:.1f} s "
        f"(set-up + first epoch {total - sum(epochs[1:]):.1f} s, then {per_epoch:.2f} s/epoch);"
        f" 65 epochs ≈ {(total - sum(epochs[1:]) + 64 * per_epoch) / 60:.1f} min"
    )


if __name__ == "__main__":
    main()
