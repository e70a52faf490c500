"""``nnlat.predict()``: a latency estimate in milliseconds, without measuring.

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
from pydantic import BaseModel, ConfigDict

from nnlat.errors import NnlatWarning
from nnlat.features.raw import RawFeatures, raw_features
from nnlat.forked import iter_forked, processes
from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.load import load
from nnlat.platform import PlatformMatch, UnknownPlatformError, match_platform
from nnlat.predictor.batching import torch_threads
from nnlat.predictor.predictor import Predictor, PredictorError
from nnlat.zoo.family import ZooModel

PRETRAINED_DIR = Path(__file__).parent / "pretrained"

MIN_PARALLEL_MODELS = 16
"""From this many models on, :func:`predict_many` loads them in worker processes."""


class Prediction(BaseModel):
    """A predicted latency.

    Attributes:
        latency_ms: the estimate, in milliseconds.
        platform: the platform it is for.
        graph_hash: the model's structural hash.
        batch_size: dimension 0 of the inputs.
        unseen_ops: operators the predictor never saw in training (less trustworthy).
        predictor: which predictor answered (network and where it was loaded from).
        served_by: the platform whose head answered: ``platform`` itself, or the nearest
            head when the predictor has none for it (see :func:`nnlat.platform.match_platform`).
    """

    model_config = ConfigDict(frozen=True)

    latency_ms: float
    platform: str
    graph_hash: str
    batch_size: int
    unseen_ops: tuple[str, ...]
    predictor: str
    served_by: str


@functools.cache
def load_predictor(path: str | None = None) -> Predictor:
    """The predictor saved at ``path`` (default: the shipped one), loaded once per process."""
    return Predictor.load(path or PRETRAINED_DIR)


def _graph(model: Any, batch_size: int, input_shapes: Mapping[str, Sequence[int]] | None) -> Graph:
    if isinstance(model, ZooModel):
        model = model.to_onnx()
    return load(model, batch_size=batch_size, input_shapes=input_shapes)


def _head_for(predictor: Predictor, platform: str | None, source: str) -> PlatformMatch:
    """The head that answers for ``platform`` (default: this host's reference platform).

    Warns:
        NnlatWarning: the head is not the platform's own (it names the head used).
    """
    if platform is None:
        from nnlat.measure.runner import reference_platform

        try:
            choice = match_platform(reference_platform().name, predictor.platforms, explicit=False)
        except UnknownPlatformError:  # no head near this host (or no onnxruntime): the first
            choice = PlatformMatch(predictor.platforms[0], predictor.platforms[0], "exact")
    else:
        try:
            choice = match_platform(platform, predictor.platforms)
        except UnknownPlatformError as error:
            raise PredictorError(str(error)) from None
    if not choice.exact:
        warnings.warn(choice.warning(source), NnlatWarning, stacklevel=3)
    return choice


def _label(model: Any) -> str:
    """How a warning names a model: its file name, else its kind."""
    if isinstance(model, str | Path):
        return Path(model).name
    return f"the {type(model).__name__} model"


def _load_features(
    model: Any, batch_size: int, input_shapes: Mapping[str, Sequence[int]] | None
) -> tuple[str, RawFeatures]:
    """Load ``model``; its graph hash and raw features (run in a worker for many models)."""
    graph = _graph(model, batch_size, input_shapes)
    if not graph.nodes:  # e.g. an identity model: it folds to nothing a network can read
        raise PredictorError(
            f"{_label(model)} has no operators left after normalisation: nothing to predict"
        )
    return graph_key(graph).digest, raw_features(graph)


def predict_many(
    models: Sequence[Any],
    platform: str | None = None,
    batch_size: int = 1,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    predictor: Predictor | str | Path | None = None,
    workers: int | None = None,
) -> list[Prediction]:
    """Predict the latency of several models on one platform, in one batch.

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
        predictor: a :class:`Predictor`, a saved predictor's directory, or None for
            the shipped one.
        workers: processes that load models (default: the allowed cores; 1: in-process).

    Raises:
        PredictorError: no head of the predictor may answer for ``platform``.
        NnlatError: a model cannot be loaded (the first one in order that cannot; a note
            on the error says which).

    Warns:
        NnlatWarning: a model has operators the predictor never saw in training (the
            warning names the model), or the head that answers is not ``platform``'s own.
    """
    chosen = (
        predictor
        if isinstance(predictor, Predictor)
        else load_predictor(None if predictor is None else str(predictor))
    )
    # an unknown platform fails before any model is loaded
    head = _head_for(chosen, platform, "PREDICTOR" if predictor is None else str(predictor))
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
        latencies = chosen.predict_raw(raws(), head.head)
    label = f"{chosen.network}:{chosen.info.get('name', 'custom')}"
    results = []
    for model, (digest, raw), latency in zip(models, loaded, latencies, strict=True):
        unseen = chosen.schema.unseen_ops(raw)
        if unseen:
            warnings.warn(
                f"{_label(model)}: operators never seen in training: {', '.join(unseen)}; "
                "the prediction is less reliable",
                NnlatWarning,
                stacklevel=2,
            )
        results.append(
            Prediction(
                latency_ms=float(latency),
                platform=head.requested,
                graph_hash=digest,
                batch_size=batch_size,
                unseen_ops=unseen,
                predictor=label,
                served_by=head.head,
            )
        )
    return results


def predict(
    model: Any,
    platform: str | None = None,
    batch_size: int = 1,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    predictor: Predictor | str | Path | None = None,
) -> Prediction:
    """Predict the latency of ``model`` on ``platform`` (see :func:`predict_many`).

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.testing.records import toy_predictor
        >>> trained, _ = toy_predictor()
        >>> p = predict(tiny_model(), "fake-fake1.0-fp32-t1", predictor=trained)
        >>> p.latency_ms > 0, p.unseen_ops
        (True, ())
    """
    return predict_many([model], platform, batch_size, input_shapes, predictor=predictor)[0]
