"""The COBRA model shipped in ``nnlat/predictor/pretrained/cobra`` (trained by
``scripts/cobra_gpu.sh``, reports/cobra): it loads on a CPU-only install and predicts
test networks of its own study, read back from their source, as its report says."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from nnlat.datasets.cobra import read_records
from nnlat.predictor.code.api import PRETRAINED_DIR, load_cobra
from nnlat.studies.cobra import network_split
from nnlat.zoo.cobra.networks import code_graph

ROOT = Path(__file__).resolve().parents[3]


def test_the_shipped_model_says_how_it_was_trained() -> None:
    info = json.loads((PRETRAINED_DIR / "cobra.json").read_text())["info"]
    assert "cobra_study.py" in info["study"]["command"]
    assert info["platform"] == "xeon-torch2.13-fp32-t1"


def test_the_shipped_model_predicts_its_test_networks_from_source() -> None:
    """Thirty networks of the study's test split (never trained on), interpreted from their
    source here: the report's test MAPE is 9.9 % for this seed; 30 of them stay under 15 %."""
    records = read_records(ROOT / "data" / "cobra" / "networks.jsonl.gz")
    test = network_split(len(records))[2]
    chosen = [records[i] for i in test[:30]]
    graphs = [code_graph(r["source"], r["config"]["resolution"]) for r in chosen]
    predicted = load_cobra().predict(graphs)
    measured = np.array([r["latency_ms"] for r in chosen])
    error = np.abs(predicted / measured - 1.0)
    assert error.mean() < 0.15, error.mean()
