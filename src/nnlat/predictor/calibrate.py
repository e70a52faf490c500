"""Onboard a CPU platform on this host: time K models here, fit the head's scale, save it.

The procedure behind `nnlat onboard -p PLATFORM` for a platform of this host's CPU (a Vela
NPU is onboarded by :mod:`nnlat.predictor.onboard`); what it saves and why is in
:mod:`nnlat.predictor.calibration`.
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nnlat.errors import NnlatError, NnlatWarning
from nnlat.predictor.api import predict_many
from nnlat.predictor.calibration import Calibration, save_calibration, shot_models


def _timed_here(platform: str) -> Callable[[Any], float]:
    """Times a model on ``platform`` of this host with the measurement protocol."""
    from nnlat.measure.runner import median_ms

    return lambda model: median_ms(model.to_graph(batch_size=1), platform)


def calibrate(
    platform: str,
    shots: int = 3,
    *,
    predictor: Any = None,
    folder: Path | None = None,
    measure_ms: Callable[[Any], float] | None = None,
    models: Sequence[tuple[str, Any]] | None = None,
) -> Calibration:
    """Time ``shots`` models on ``platform`` here, fit the head's scale, save it.

    Args:
        platform: a platform of this host that a head of the predictor answers for.
        shots: K, the models timed (1 to ``len(SHOT_ARCHITECTURES)``).
        predictor: a :class:`~nnlat.predictor.predictor.Predictor` (default: the shipped one).
        folder: where to save (default: the user's onboarded predictors).
        measure_ms: times a model here (default: the measurement protocol on ``platform``).
        models: ``(name, model)`` pairs to time instead of :func:`shot_models`.

    Returns:
        The saved :class:`Calibration`.

    Raises:
        NnlatError: a model could not be timed, or no head answers for ``platform``.
    """
    from nnlat.measure.environment import detect_hardware

    start = time.perf_counter()
    chosen = list(models) if models is not None else shot_models(shots)
    measured = [(measure_ms or _timed_here(platform))(model) for _, model in chosen]
    with warnings.catch_warnings():  # the other-hardware warning is why we are here
        warnings.simplefilter("ignore", NnlatWarning)
        predictions = predict_many(
            [model for _, model in chosen], platform, predictor=predictor, calibrated=False
        )
    predicted = [p.latency_ms or 0.0 for p in predictions]
    if min(predicted) <= 0:
        raise NnlatError(f"the head of {predictions[0].served_by} predicted no latency")
    calibration = Calibration(
        platform=platform,
        head=predictions[0].served_by,
        predictor=predictions[0].predictor,
        fingerprint=detect_hardware().fingerprint,
        scale=statistics.median(m / p for m, p in zip(measured, predicted, strict=True)),
        shot_models=tuple(name for name, _ in chosen),
        shot_ms=tuple(measured),
        predicted_ms=tuple(predicted),
        created=time.time(),
        seconds=time.perf_counter() - start,
    )
    save_calibration(calibration, folder)
    return calibration
