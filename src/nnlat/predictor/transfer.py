"""Transfer learning (NNLQP §6.2, §8.6): fine-tune a pre-trained predictor on k samples.

:func:`fine_tune` starts from a trained :class:`Predictor` and fine-tunes all its
parameters (backbone and heads), or only the heads, on a few records of an unseen model
family and/or an unseen platform; a platform it has no head for gets a new head,
initialised from the existing head whose predictions best match the new latencies. The
pre-trained predictor is left untouched. :func:`from_scratch` trains a fresh predictor on the same
records under the same settings policy (:func:`transfer_settings`), the baseline that
transfer is compared with in the paper's Figures 6-7.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import torch
from torch import nn

from nnlat.features.records import LatencyRecord
from nnlat.predictor.predictor import Predictor, PredictorError, to_data
from nnlat.predictor.training import (
    OnEpoch,
    TrainResult,
    TrainSettings,
    predict_log,
)

# With fewer records than this, no validation share is held out: a handful of
# validation graphs would pick the checkpoint on noise and cost scarce training data.
MIN_RECORDS_FOR_VALIDATION = 20

# The default fine-tuning settings. The pre-trained weights already sit near a good
# solution: a third of the from-scratch learning rate (1e-3) adapts them without
# wrecking the backbone's features on a few samples, and fewer epochs (100, not 150)
# with a shorter patience (20, not 25) suffice from that start. A larger validation
# share (20 %) than from-scratch training's 10 % keeps early stopping meaningful with
# only tens of records.
FINE_TUNE_SETTINGS = TrainSettings(epochs=100, lr=3e-4, patience=20, valid_fraction=0.2)


def transfer_settings(n_records: int, settings: TrainSettings | None = None) -> TrainSettings:
    """The settings to fine-tune (or train from scratch) on ``n_records`` records.

    ``settings`` (default :data:`FINE_TUNE_SETTINGS`) as given, except that with fewer
    than :data:`MIN_RECORDS_FOR_VALIDATION` records the validation share is dropped:
    training then runs exactly ``settings.epochs`` epochs and keeps the last.

    Example:
        >>> transfer_settings(12).valid_fraction, transfer_settings(12).epochs
        (0.0, 100)
        >>> transfer_settings(100).valid_fraction, transfer_settings(100).lr
        (0.2, 0.0003)
    """
    settings = settings or FINE_TUNE_SETTINGS
    if n_records < MIN_RECORDS_FOR_VALIDATION and settings.valid_fraction > 0:
        settings = settings.model_copy(update={"valid_fraction": 0.0})
    return settings


def _last_linear(head: nn.Module) -> nn.Linear | None:
    linears = [m for m in head.modules() if isinstance(m, nn.Linear)]
    return linears[-1] if linears else None


def _pick_source_head(predictor: Predictor, records: Sequence[LatencyRecord]) -> tuple[int, float]:
    """The head whose predictions match ``records`` best up to a constant factor.

    Platforms differ first by an overall speed ratio, which a shift of the head's last
    bias absorbs exactly (heads output log-latency). So each head is scored by the
    spread of ``log(measured / predicted)`` over the records, and the best one is
    returned with the mean of that log-ratio (the shift to apply). Ties go to the
    lowest head index (the first platform).
    """
    features = [predictor.schema.encode(r.raw) for r in records]
    # only latency heads: a memory head's shape says nothing of a new platform's speed
    candidates = [i for i, target in enumerate(predictor.targets) if target == "latency"]
    log_predicted = np.stack(
        [predict_log(predictor.net, [to_data(f, head) for f in features]) for head in candidates],
        axis=1,
    )
    column, shift = closest_up_to_factor(np.log([r.latency_ms for r in records]), log_predicted)
    return candidates[column], shift


def closest_up_to_factor(log_measured: np.ndarray, log_columns: np.ndarray) -> tuple[int, float]:
    """The column of ``log_columns`` (samples × candidates) that matches ``log_measured``
    best up to an additive constant, and that constant (the mean log-ratio).

    Scored by the variance of ``log_measured - column``; ties go to the first column.

    Example:
        >>> measured = np.log([2.0, 4.0, 8.0])
        >>> columns = np.log([[1.0, 1.0], [3.0, 2.0], [1.0, 4.0]])
        >>> column, shift = closest_up_to_factor(measured, columns)
        >>> column, round(float(np.exp(shift)), 6)
        (1, 2.0)
    """
    ratio = log_measured[:, None] - log_columns
    spread = np.mean((ratio - ratio.mean(axis=0)) ** 2, axis=0)
    best = 0
    for column in range(1, len(spread)):
        if spread[column] < spread[best] - 1e-12:
            best = column
    return best, float(ratio[:, best].mean())


def _add_head(predictor: Predictor, records: Sequence[LatencyRecord]) -> dict[str, Any]:
    """Add a head for the platform of ``records`` to ``predictor`` (in place)."""
    net = predictor.net
    if not hasattr(net, "add_head") or not hasattr(net, "heads"):
        raise PredictorError(
            f"network {predictor.network!r} cannot grow a head for a new platform "
            f"({records[0].platform!r}): fine-tune on its known platforms only"
        )
    source, log_shift = _pick_source_head(predictor, records)
    index = net.add_head()
    net.heads[index].to(next(net.parameters()).device)  # add_head may build it on the CPU
    net.heads[index].load_state_dict(net.heads[source].state_dict())
    last = _last_linear(net.heads[index])
    if last is not None and last.bias is not None:
        with torch.no_grad():
            last.bias += log_shift
    else:
        log_shift = 0.0
    predictor.add_head_name(records[0].platform)
    return {"copied_from": predictor.platforms[source], "scale": float(np.exp(log_shift))}


def with_new_heads(
    predictor: Predictor, records: Sequence[LatencyRecord], seed: int = 0
) -> tuple[Predictor, dict[str, dict[str, Any]]]:
    """A copy of ``predictor`` with a head for each platform of ``records`` it lacks.

    Each new head is a copy of the existing head whose predictions on that platform's
    records are closest up to a constant factor, with that factor folded into its last
    bias (so a platform 3x slower starts 3x slower): on its own, the zero-training
    baseline of few-shot adaptation. ``predictor`` is not modified.

    Returns:
        The copy and, per new platform, ``{"copied_from": platform, "scale": factor}``.

    Raises:
        PredictorError: a new platform for a network without heads.
    """
    tuned = Predictor(
        predictor.schema,  # frozen: shared, never modified
        copy.deepcopy(predictor.net),
        predictor.network,
        predictor.platforms,  # Predictor copies the lists
        predictor.info,
        targets=predictor.targets,
        log_scales=predictor.log_scales,
    )
    torch.manual_seed(seed)  # add_head draws weights before they are overwritten
    new_heads = {
        platform: _add_head(tuned, [r for r in records if r.platform == platform])
        for platform in sorted({r.platform for r in records})
        if platform not in tuned.platforms
    }
    return tuned, new_heads


def _train_only_heads(net: nn.Module, heads: Sequence[int]) -> None:
    """Freeze every parameter of ``net`` except those of the given heads."""
    net.requires_grad_(False)
    for index in heads:
        net.heads[index].requires_grad_(True)


def fine_tune(
    predictor: Predictor,
    records: Sequence[LatencyRecord],
    *,
    settings: TrainSettings | None = None,
    part: Literal["all", "heads"] = "all",
    on_epoch: OnEpoch | None = None,
) -> tuple[Predictor, TrainResult]:
    """A copy of ``predictor`` fine-tuned on ``records`` (NNLQP §6.2 transfer learning).

    ``predictor`` itself is not modified. The copy keeps its feature schema (operators
    it never saw fall into ``<other>``), so the pre-trained network reads the new graphs
    as it was trained to. Every platform of ``records`` without a head gets one
    (:func:`with_new_heads`), appended to ``platforms``. Then the parameters are trained
    on ``records`` with :func:`transfer_settings`: early stopping on a validation share
    of the graphs when there are at least :data:`MIN_RECORDS_FOR_VALIDATION` records, a
    fixed number of epochs otherwise. ``part="all"`` trains backbone and heads;
    ``part="heads"`` only the heads of the records' platforms (the backbone's graph
    embedding stays as pre-trained, which a handful of samples cannot disturb).
    ``info["fine_tuned_on"]`` describes the transfer, ``info["pretrained"]`` keeps the
    pre-trained predictor's info.

    Args:
        predictor: the pre-trained predictor.
        records: the k samples of the unseen family and/or platform.
        settings: training settings (default :data:`FINE_TUNE_SETTINGS`).
        part: ``all`` parameters or only the ``heads`` of the records' platforms.
        on_epoch: progress callback.

    Returns:
        The fine-tuned predictor and what training did.

    Raises:
        PredictorError: no records, a new platform for a network without heads, or an
            ensemble (:meth:`~nnlat.predictor.ensemble.Ensemble.fine_tuned` is its way).

    Example:
        >>> import dataclasses
        >>> from nnlat.testing.records import toy_predictor
        >>> predictor, records = toy_predictor()
        >>> fp16 = [dataclasses.replace(r, platform="fake-fake1.0-fp16-t1") for r in records]
        >>> tuned, _ = fine_tune(predictor, fp16, settings=TrainSettings(epochs=2, device="cpu"))
        >>> tuned.platforms
        ['fake-fake1.0-fp32-t1', 'fake-fake1.0-fp16-t1']
        >>> predictor.platforms
        ['fake-fake1.0-fp32-t1']
        >>> tuned.info["fine_tuned_on"]["new_heads"]["fake-fake1.0-fp16-t1"]["copied_from"]
        'fake-fake1.0-fp32-t1'
    """
    if not isinstance(predictor, Predictor):  # an Ensemble: one network per member
        raise PredictorError("an ensemble is fine-tuned member by member: Ensemble.fine_tuned")
    if not records:
        raise PredictorError("no records to fine-tune on: measure some models first")
    settings = transfer_settings(len(records), settings)
    tuned, new_heads = with_new_heads(predictor, records, settings.seed)
    if part == "heads":
        _train_only_heads(tuned.net, [tuned.head(p) for p in {r.platform for r in records}])
    try:
        result = tuned.train(records, settings, on_epoch)
    finally:
        tuned.net.requires_grad_(True)
    trained_on = tuned.info.pop("trained_on")
    unseen = {op for r in records for op in tuned.schema.encode(r.raw).unseen_ops}
    tuned.info = {
        "fine_tuned_on": {
            **trained_on,
            "platforms": sorted({r.platform for r in records}),
            "part": part,
            "new_heads": new_heads,
            "unseen_ops": sorted(unseen),
        },
        **tuned.info,
        "pretrained": copy.deepcopy(predictor.info),
    }
    return tuned, result


def from_scratch(
    records: Sequence[LatencyRecord],
    *,
    settings: TrainSettings | None = None,
    config: dict[str, Any] | None = None,
) -> tuple[Predictor, TrainResult]:
    """A fresh predictor trained on ``records`` only: the no-transfer baseline.

    Same settings policy as :func:`fine_tune` (:func:`transfer_settings`), so the two
    differ only in their starting point; pass the pre-trained network's ``config``
    (``predictor.net.config``'s ``hidden``, ``layers``, ...) for the same architecture.
    Unlike :func:`fine_tune`, its feature schema is fitted on ``records``.

    Args:
        records: the k samples.
        settings: training settings (default :data:`FINE_TUNE_SETTINGS`).
        config: network hyper-parameters overriding the defaults.

    Raises:
        PredictorError: no records.

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> predictor, result = from_scratch(
        ...     toy_records()[:6], settings=TrainSettings(epochs=2, device="cpu"),
        ...     config={"hidden": 16, "layers": 2})
        >>> predictor.platforms, result.best_epoch, predictor.info["trained_on"]["records"]
        (['fake-fake1.0-fp32-t1'], 2, 6)
    """
    settings = transfer_settings(len(records), settings)
    return Predictor.fit(records, settings=settings, config=config)
