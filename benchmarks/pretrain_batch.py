"""Time to mask and pad one pre-training batch of the COBRA encoder (CPU side of a step).

    nice -n 10 taskset -c 0 env PYTHONPATH=src python benchmarks/pretrain_batch.py \\
        [--layers 3000] [--batch 256]

The first layers of ``data/cobra/layers.jsonl.gz``, tokenised with the study's tokenizer
(``reports/cobra/runs/tokenizer.json``), cut into the pre-training's length-sorted batches;
reported: milliseconds a batch for the masked-token rows (latency appended) and the plain
rows. This is the part of a step that does not depend on the device.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import torch

from nnlat.datasets.cobra import read_records
from nnlat.predictor.code import pretraining
from nnlat.predictor.code.encoder import EncoderConfig
from nnlat.predictor.code.tokenizer import load_tokenizer

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    layers = read_records(ROOT / "data" / "cobra" / "layers.jsonl.gz")[: args.layers]
    tokenizer = load_tokenizer(ROOT / "reports" / "cobra" / "runs" / "tokenizer.json")
    config = EncoderConfig(vocab_size=tokenizer.get_vocab_size())
    snippets, latencies = [r["snippet"] for r in layers], [r["latency_ms"] for r in layers]
    corpus = pretraining._corpus(tokenizer, snippets, latencies, config)
    order = list(range(len(corpus.plain)))
    batches = pretraining._batches(order, corpus.plain, args.batch, random.Random(0))
    masks = torch.Generator().manual_seed(0)
    start = time.perf_counter()
    for batch in batches:
        index = torch.as_tensor(batch)
        width = int(corpus.latency_len[index].max())
        rows, candidates = corpus.latency_ids[index, :width], corpus.maskable_latency[index, :width]
        pretraining._mask(rows, candidates, 0.15, 4, masks)
        corpus.plain_ids[index, : int(corpus.plain_len[index].max())]
    seconds = (time.perf_counter() - start) / len(batches)
    print(f"{len(batches)} batches of {args.batch}: {seconds * 1000:.2f} ms a batch")


if __name__ == "__main__":
    main()
