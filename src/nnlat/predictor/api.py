"""``nnlat.predict()``: a latency (or memory, energy) estimate, without measuring.

By default the predictor shipped inside the package (``nnlat/predictor/pretrained``,
trained on the project's own measured dataset; retrain with the command in
``docs/predictor.md``) answers, so a fresh install predicts with no training.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, model_validator

from nnlat.errors import NnlatWarning
from nnlat.features.raw import RawFeatures, raw_features
from nnlat.features.records import TARGET_UNITS
from nnlat.forked import iter_forked, processes
from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.load import load
from nnlat.measure.environment import detect_hardware
from nnlat.measure.observed_shapes import observe_shapes
from nnlat.platform import PlatformMatch, UnknownPlatformError, match_platform
from nnlat.predictor.batching import torch_threads
from nnlat.predictor.calibration import Calibration, load_calibration
from nnlat.predictor.data_dependence import DATA_DEPENDENT_WORDS, data_dependent_ops
from nnlat.predictor.ensemble import Ensemble, load_saved
from nnlat.predictor.hardware_check import other_hardware_warning, same_hardware
from nnlat.predictor.predictor import Predictor, PredictorError
from nnlat.predictor.ranges import outside_ranges
from nnlat.zoo.family import ZooModel

PRETRAINED_DIR = Path(__file__).parent / "pretrained"

MIN_PARALLEL_MODELS = 16
"""From this many models on, :func:`predict_many` loads them in worker processes."""


class Prediction(BaseModel):
    """A predicted latency, memory or energy.

    Attributes:
        latency_ms: the latency estimate in milliseconds (None when ``target`` is another).
        platform: the platform it is for.
        graph_hash: the model's structural hash.
        batch_size: dimension 0 of the inputs.
        unseen_ops: operators the predictor never saw in training (less trustworthy).
        outside_training: graph-level values (operators, FLOPs, parameters, bytes, batch)
            beyond the range of the predictor's training graphs, in words: the network
            extrapolates there (:mod:`nnlat.predictor.ranges`).
        data_dependent: operators whose work the input values decide (``Loop``, ``If``,
            ``NonZero``, ``NonMaxSuppression``, …): the prediction holds for inputs like
            those the model would be timed with, not for every input
            (:mod:`nnlat.predictor.data_dependence`).
        predictor: which predictor answered (network and where it was loaded from).
        served_by: the platform whose head answered: ``platform`` itself, or the nearest
            head when the predictor has none for it (see :func:`nnlat.platform.match_platform`).
        target: what is predicted: ``latency``, ``memory`` or ``energy``.
        value: the estimate of ``target``, in ``unit``.
        unit: ``ms``, ``bytes`` or ``J`` (:data:`~nnlat.features.records.TARGET_UNITS`).
        same_hardware: whether ``served_by``'s data were measured on this host's hardware
            (by fingerprint, :mod:`nnlat.predictor.hardware_check`); None when the head is
            of other hardware or its predictor does not record fingerprints.
        calibration: the host's scale this latency carries, when the platform was
            onboarded on this host (:mod:`nnlat.predictor.calibrate`), else None.
    """

    model_config = ConfigDict(frozen=True)

    latency_ms: float | None
    platform: str
    graph_hash: str
    batch_size: int
    unseen_ops: tuple[str, ...]
    predictor: str
    served_by: str
    target: str = "latency"
    value: float | None = None
    unit: str = "ms"
    same_hardware: bool | None = None
    calibration: str | None = None
    outside_training: tuple[str, ...] = ()
    data_dependent: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _latency_is_the_value(self) -> Prediction:
        """A latency prediction from before targets existed (an older server) has no
        ``value``: it is ``latency_ms``."""
        if self.value is None and self.target == "latency":
            object.__setattr__(self, "value", self.latency_ms)
        return self


@functools.cache
def load_predictor(path: str | None = None) -> Predictor | Ensemble:
    """The predictor (or ensemble) saved at ``path`` (default: the shipped one), loaded
    once per process."""
    return load_saved(path or PRETRAINED_DIR)


def _loaded(predictor: Predictor | Ensemble | str | Path | None) -> Predictor | Ensemble:
    """``predictor`` itself, or the one saved in that directory (None: the shipped one)."""
    if isinstance(predictor, Predictor | Ensemble):
        return predictor
    return load_predictor(None if predictor is None else str(predictor))


def _graph(model: Any, batch_size: int, input_shapes: Mapping[str, Sequence[int]] | None) -> Graph:
    if isinstance(model, ZooModel):
        model = model.to_onnx()
    return load(model, batch_size=batch_size, input_shapes=input_shapes)


def _head_for(
    predictor: Predictor | Ensemble, platform: str | None, source: str, target: str = "latency"
) -> PlatformMatch:
    """The platform whose head answers for ``platform`` (default: this host's reference
    platform), among those with a ``target`` head.

    Warns:
        NnlatWarning: the head is not the platform's own (it names the head used).
    """
    known = [p for p, t in predictor.heads if t == target]
    if not known:
        raise PredictorError(
            f"this predictor predicts no {target} (its targets: "
            f"{', '.join(dict.fromkeys(predictor.targets))})"
        )
    if platform is None:
        from nnlat.measure.runner import reference_platform

        try:
            choice = match_platform(reference_platform().name, known, explicit=False)
        except UnknownPlatformError:  # no head near this host (or no onnxruntime): the first
            choice = PlatformMatch(known[0], known[0], "exact")
    else:
        try:
            choice = match_platform(
                platform, known, explicit=not _names_this_host(platform), source=source
            )
        except UnknownPlatformError as error:
            if platform in predictor.platforms:  # the platform is known, the target not
                predictor.head(platform, target)  # raises, naming the platform's targets
            raise PredictorError(str(error)) from None
    if not choice.exact:
        warnings.warn(choice.warning(source), NnlatWarning, stacklevel=3)
    return choice


def _calibration(head: PlatformMatch, predictor: str, fingerprint: str) -> Calibration | None:
    """This host's saved calibration of the requested platform, if it was made for this
    predictor's answering head (another predictor or head is not what was scaled)."""
    found = load_calibration(head.requested, fingerprint)
    if found is None or found.predictor != predictor or found.head != head.head:
        return None
    return found


def _label(model: Any) -> str:
    """How a warning names a model: its file name, else its kind."""
    if isinstance(model, str | Path):
        return Path(model).name
    return f"the {type(model).__name__} model"


def _load_features(
    model: Any, batch_size: int, input_shapes: Mapping[str, Sequence[int]] | None
) -> tuple[str, RawFeatures]:
    """Load ``model``; its graph hash and raw features (run in a worker for many models).

    A model given as a file (not a stored :class:`Graph`) whose shapes inference cannot
    all give is run once to see them (:func:`observe_shapes`).
    """
    graph = _graph(model, batch_size, input_shapes)
    if not isinstance(model, Graph):
        graph = observe_shapes(graph)
    if not graph.nodes:  # e.g. an identity model: it folds to nothing a network can read
        raise PredictorError(
            f"{_label(model)} has no operators left after normalisation: nothing to predict"
        )
    return graph_key(graph).digest, raw_features(graph)


def _names_this_host(platform: str) -> bool:
    """Whether ``platform`` is this host's reference platform: naming it is asking for the
    default, so a head of other hardware may answer (with a warning), as without ``-p``."""
    from nnlat.measure.runner import reference_platform

    try:
        return platform == reference_platform().name
    except UnknownPlatformError:  # no onnxruntime here: no reference platform to name
        return False


def predict_many(
    models: Sequence[Any],
    platform: str | None = None,
    batch_size: int = 1,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    predictor: Predictor | Ensemble | str | Path | None = None,
    workers: int | None = None,
    target: str = "latency",
    calibrated: bool = True,
) -> list[Prediction]:
    """Predict the latency (or ``target``) of several models on one platform, in one batch.

    From :data:`MIN_PARALLEL_MODELS` models on, the models are loaded and their features
    computed by forked workers and this process, on every allowed core
    (:func:`~nnlat.forked.iter_forked`); the network runs here, batch by batch as the
    features come, on one torch thread meanwhile.

    Args:
        models: paths, ONNX bytes, ``onnx.ModelProto``, ``Graph`` or zoo models.
        platform: a platform the predictor has a head for, or a newer runtime version of
            one (default: this host's reference platform, served by its closest head; see
            :func:`~nnlat.predictor.heads.choose_head`).
        batch_size: dimension 0 of every input.
        input_shapes: input name → shape overrides (applied to every model).
        predictor: a :class:`Predictor` or :class:`~nnlat.predictor.ensemble.Ensemble`, a
            saved one's directory, or None for the shipped one.
        workers: processes that load models (default: the allowed cores; 1: in-process).
        target: ``latency`` (ms), ``memory`` (bytes) or ``energy`` (J).
        calibrated: apply this host's calibration of ``platform`` when `nnlat onboard`
            saved one for this predictor's head (latency only).

    Raises:
        PredictorError: no head of the predictor may answer for ``target`` on ``platform``.
        NnlatError: a model cannot be loaded (the first one in order that cannot; a note
            on the error says which).

    Warns:
        NnlatWarning: a model has operators the predictor never saw in training (the
            warning names the model), or the head that answers is not ``platform``'s own.
    """
    chosen = _loaded(predictor)
    # an unknown platform fails before any model is loaded
    # how the user names the predictor, for `nnlat train --from` in messages
    source = "shipped" if predictor is None else "PREDICTOR"
    if isinstance(predictor, str | Path):
        source = str(predictor)
    head = _head_for(chosen, platform, source, target)
    label = f"{chosen.network}:{chosen.info.get('name', 'custom')}"
    host = detect_hardware()
    matched = same_hardware(chosen.info, head.head, host.hardware, host.fingerprint)
    calibration = _calibration(head, label, host.fingerprint) if calibrated else None
    if target != "latency":
        calibration = None
    if matched is False and calibration is None:
        warnings.warn(
            other_hardware_warning(head.head, chosen.info, host.fingerprint),
            NnlatWarning,
            stacklevel=2,
        )
    load_one = functools.partial(_load_features, batch_size=batch_size, input_shapes=input_shapes)
    loaded: list[tuple[str, RawFeatures]] = []

    def raws() -> Iterator[RawFeatures]:  # the network runs on the first while more load
        for digest, raw in iter_forked(
            load_one, models, workers, label="model", min_items=MIN_PARALLEL_MODELS
        ):
            loaded.append((digest, raw))
            yield raw

    forked = processes(len(models), workers, MIN_PARALLEL_MODELS) > 1
    with torch_threads(1 if forked else torch.get_num_threads()):
        values = chosen.predict_raw(raws(), head.head, target)
    scale = calibration.scale if calibration is not None else 1.0
    results = []
    for model, (digest, raw), unscaled in zip(models, loaded, values, strict=True):
        value = float(unscaled) * scale
        unseen = chosen.schema.unseen_ops(raw)
        if unseen:
            warnings.warn(
                f"{_label(model)}: operators never seen in training: {', '.join(unseen)}; "
                "the prediction is less reliable",
                NnlatWarning,
                stacklevel=2,
            )
        outside = outside_ranges(raw, chosen.info)
        if outside:
            warnings.warn(
                f"{_label(model)}: outside the training graphs: {'; '.join(outside)}; "
                "the prediction extrapolates",
                NnlatWarning,
                stacklevel=2,
            )
        data_dependent = data_dependent_ops(raw)
        if data_dependent:
            warnings.warn(
                f"{_label(model)}: {DATA_DEPENDENT_WORDS}: {', '.join(data_dependent)}",
                NnlatWarning,
                stacklevel=2,
            )
        results.append(
            Prediction(
                latency_ms=float(value) if target == "latency" else None,
                platform=head.requested,
                graph_hash=digest,
                batch_size=batch_size,
                unseen_ops=unseen,
                predictor=label,
                served_by=head.head,
                target=target,
                same_hardware=matched,
                calibration=calibration.note if calibration is not None else None,
                value=float(value),
                unit=TARGET_UNITS[target],
                outside_training=outside,
                data_dependent=data_dependent,
            )
        )
    return results


def predict(
    model: Any,
    platform: str | None = None,
    batch_size: int = 1,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    predictor: Predictor | Ensemble | str | Path | None = None,
    target: str = "latency",
    calibrated: bool = True,
) -> Prediction:
    """Predict the latency (or ``target``) of ``model`` on ``platform`` (see
    :func:`predict_many`).

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.testing.records import toy_predictor
        >>> trained, _ = toy_predictor()
        >>> p = predict(tiny_model(), "fake-fake1.0-fp32-t1", predictor=trained)
        >>> p.latency_ms > 0, p.unseen_ops
        (True, ())
    """
    return predict_many(
        [model],
        platform,
        batch_size,
        input_shapes,
        predictor=predictor,
        target=target,
        calibrated=calibrated,
    )[0]


def predict_heads(
    model: Any,
    batch_size: int = 1,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    predictor: Predictor | Ensemble | str | Path | None = None,
) -> list[Prediction]:
    """Every target on every platform the predictor knows, for one model: the model is
    loaded and embedded once, and each head reads that embedding.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.testing.records import toy_predictor
        >>> trained, _ = toy_predictor()
        >>> [(p.platform, p.target) for p in predict_heads(tiny_model(), predictor=trained)]
        [('fake-fake1.0-fp32-t1', 'latency')]
    """
    chosen = _loaded(predictor)
    digest, raw = _load_features(model, batch_size, input_shapes)
    label = f"{chosen.network}:{chosen.info.get('name', 'custom')}"
    unseen = chosen.schema.unseen_ops(raw)
    outside = outside_ranges(raw, chosen.info)
    data_dependent = data_dependent_ops(raw)
    host = detect_hardware()
    return [
        Prediction(
            latency_ms=float(values[0]) if target == "latency" else None,
            platform=platform,
            graph_hash=digest,
            batch_size=batch_size,
            unseen_ops=unseen,
            predictor=label,
            served_by=platform,
            target=target,
            same_hardware=same_hardware(chosen.info, platform, host.hardware, host.fingerprint),
            value=float(values[0]),
            unit=TARGET_UNITS[target],
            outside_training=outside,
            data_dependent=data_dependent,
        )
        for (platform, target), values in chosen.predict_heads([raw]).items()
    ]
