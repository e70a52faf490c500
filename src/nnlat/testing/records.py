"""Training records and a trained predictor in a second, for tests and doc examples."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nnlat.features.raw import raw_features
from nnlat.features.records import LatencyRecord
from nnlat.graph import graph_key, load
from nnlat.testing.models import tiny_model

if TYPE_CHECKING:
    from nnlat.predictor.predictor import Predictor

TOY_PLATFORM = "fake-fake1.0-fp32-t1"


def toy_records(platform: str = TOY_PLATFORM) -> list[LatencyRecord]:
    """Twelve tiny Conv→Relu graphs whose "latency" is 0.1 ms + 1 ms per MFLOP.

    Example:
        >>> len(toy_records())
        12
    """
    records = []
    for channels in (2, 4, 8, 16):
        for side in (8, 16, 32):
            graph = load(tiny_model(channels=channels, side=side))
            raw = raw_features(graph)
            latency = 0.1 + float(raw.graph_values[1]) / 1e6
            records.append(
                LatencyRecord(graph_key(graph).digest, "tiny", platform, 1, latency, raw)
            )
    return records


def toy_predictor(epochs: int = 3, seed: int = 0) -> tuple[Predictor, list[LatencyRecord]]:
    """A small NNLP trained for a few epochs on :func:`toy_records`, and those records."""
    from nnlat.predictor.predictor import Predictor
    from nnlat.predictor.training import TrainSettings

    records = toy_records()
    predictor, _ = Predictor.fit(
        records,
        settings=TrainSettings(epochs=epochs, valid_fraction=0.25, device="cpu", seed=seed),
        config={"hidden": 16, "layers": 2},
    )
    return predictor, records
