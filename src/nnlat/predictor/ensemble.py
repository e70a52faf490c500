"""``Ensemble``: several predictors of one recipe, answering with their geometric mean.

Seeds of one training recipe land 13 to 25 points of MAPE apart on models people ship,
while their validation errors rank them in no useful order
(``reports/realworld/validation.md``): a single seed is a draw. An ensemble of seeds
answers with the geometric mean of its members — the mean of their log outputs, which is
what each network is trained on — and is steadier than any one of them.

It saves as a directory: ``ensemble.json`` (its members and summary) and one saved
:class:`~nnlat.predictor.predictor.Predictor` per member, in a subdirectory each. Every
member has the same heads; each keeps its own feature schema, whose scalers were fitted
on its own (seed-dependent) training split. What the prediction API reads besides
predictions — the operators seen in training, the training ranges, the hardware — comes
from the first member: members of one recipe share their training graphs.

:func:`load_saved` loads either kind of directory. An ensemble is not trained as a
whole: its members are trained one by one, then saved together (:meth:`Ensemble.save`);
:meth:`Ensemble.fine_tuned` fine-tunes every member alike (``nnlat train --from``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from nnlat.features.parallel import iter_raw_features
from nnlat.features.raw import RawFeatures
from nnlat.features.records import LatencyRecord
from nnlat.features.schema import FeatureSchema
from nnlat.graph.ir import Graph
from nnlat.predictor.predictor import LATENCY, Predictor, PredictorError
from nnlat.predictor.saving import replaced_directory
from nnlat.predictor.training import OnEpoch, TrainResult, TrainSettings
from nnlat.predictor.transfer import fine_tune

ENSEMBLE_FILE = "ensemble.json"
ENSEMBLE_FORMAT_VERSION = 1


class Ensemble:
    """Predicts what its members predict, as their geometric mean.

    Attributes:
        members: the predictors (same heads, in the same order).
        info: the first member's training summary, with ``members`` (how many) and
            whatever the ensemble was saved with (its ``name``).

    Example:
        >>> from nnlat.testing.records import toy_predictor
        >>> (one, records), (two, _) = toy_predictor(seed=0), toy_predictor(seed=1)
        >>> both = Ensemble([one, two])
        >>> raws, platform = [r.raw for r in records[:3]], records[0].platform
        >>> single = [p.predict_raw(raws, platform) for p in (one, two)]
        >>> bool(np.allclose(both.predict_raw(raws, platform), np.sqrt(single[0] * single[1])))
        True
    """

    def __init__(self, members: Sequence[Predictor], info: dict[str, Any] | None = None) -> None:
        if not members:
            raise PredictorError("an ensemble needs at least one member")
        first = members[0]
        for member in members[1:]:
            if member.heads != first.heads:
                raise PredictorError(
                    f"ensemble members must have the same heads: {member.heads} "
                    f"against {first.heads}"
                )
        self.members = list(members)
        self.info = {**first.info, **(info or {}), "members": len(self.members)}

    # -- what the prediction API reads: the first member's -------------------------------

    @property
    def schema(self) -> FeatureSchema:
        """The first member's schema (its operator vocabulary: the training graphs')."""
        return self.members[0].schema

    @property
    def network(self) -> str:
        return self.members[0].network

    @property
    def platforms(self) -> list[str]:
        return self.members[0].platforms

    @property
    def targets(self) -> list[str]:
        return self.members[0].targets

    @property
    def heads(self) -> list[tuple[str, str]]:
        return self.members[0].heads

    def head(self, platform: str, target: str = LATENCY) -> int:
        """The index of ``platform``'s ``target`` head (raises as a member would)."""
        return self.members[0].head(platform, target)

    # -- predictions: the geometric mean of the members' ---------------------------------

    def predict_raw(
        self, raws: Iterable[RawFeatures], platform: str, target: str = LATENCY
    ) -> np.ndarray:
        """Predicted ``target`` of graphs on ``platform``: the members' geometric mean."""
        raws = list(raws)  # every member reads them
        return _geometric_mean([m.predict_raw(raws, platform, target) for m in self.members])

    def predict_graphs(
        self,
        graphs: Sequence[Graph],
        platform: str,
        workers: int | None = None,
        target: str = LATENCY,
    ) -> np.ndarray:
        """Predicted ``target`` of loaded graphs: features computed once, for every member."""
        return self.predict_raw(list(iter_raw_features(graphs, workers)), platform, target)

    def predict_heads(self, raws: Sequence[RawFeatures]) -> dict[tuple[str, str], np.ndarray]:
        """Every head's prediction for graphs, each the members' geometric mean."""
        each = [m.predict_heads(raws) for m in self.members]
        return {key: _geometric_mean([e[key] for e in each]) for key in self.heads}

    def predict_all(self, raws: Sequence[RawFeatures]) -> dict[str, np.ndarray]:
        """Predicted latencies (ms) of graphs on every platform."""
        every = self.predict_heads(raws)
        return {p: values for (p, t), values in every.items() if t == LATENCY}

    def predict_records(
        self, records: Sequence[LatencyRecord], target: str = LATENCY
    ) -> np.ndarray:
        """Predicted ``target`` of records, each on its own platform."""
        return _geometric_mean([m.predict_records(records, target) for m in self.members])

    # -- transfer ------------------------------------------------------------------------

    def fine_tuned(
        self,
        records: Sequence[LatencyRecord],
        *,
        settings: TrainSettings | None = None,
        part: Literal["all", "heads"] = "all",
        on_epoch: OnEpoch | None = None,
    ) -> tuple[Ensemble, TrainResult]:
        """Every member fine-tuned alike on ``records`` (NNLQP §6.2, as :func:`fine_tune`),
        with what training did summarised by :func:`combined_result` (the members draw
        the same validation split: it follows ``settings.seed``)."""
        tuned = [
            fine_tune(m, records, settings=settings, part=part, on_epoch=on_epoch)
            for m in self.members
        ]
        summary = combined_result([result for _, result in tuned])
        return Ensemble([p for p, _ in tuned], {"name": self.info.get("name")}), summary

    # -- persistence ---------------------------------------------------------------------

    def save(self, directory: Path | str, name: str | None = None) -> Path:
        """Write ``ensemble.json`` and one member per subdirectory (replaced whole).

        Args:
            directory: where to save.
            name: the ensemble's name in predictions (default: the first member's).

        Returns:
            The directory.
        """
        directory = Path(directory)
        names = [f"member{index}" for index in range(len(self.members))]
        sidecar = {
            "format_version": ENSEMBLE_FORMAT_VERSION,
            "combine": "geometric-mean",
            "members": names,
            "name": name or self.info.get("name"),
            "seeds": [m.info.get("settings", {}).get("seed") for m in self.members],
        }
        with replaced_directory(directory) as staging:
            for member, member_dir in zip(self.members, names, strict=True):
                member.save(staging / member_dir)
            (staging / ENSEMBLE_FILE).write_text(json.dumps(sidecar, indent=1) + "\n")
        return directory

    @classmethod
    def load(cls, directory: Path | str) -> Ensemble:
        """Load an ensemble saved by :meth:`save`.

        Raises:
            PredictorError: a missing or malformed file, or a member that does not load.
        """
        directory = Path(directory)
        try:
            sidecar = json.loads((directory / ENSEMBLE_FILE).read_text())
            names = [str(n) for n in sidecar["members"]]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
            raise PredictorError(f"{directory} is not a saved ensemble: {exc}") from None
        if sidecar.get("format_version") != ENSEMBLE_FORMAT_VERSION:
            raise PredictorError(
                f"ensemble {directory} has format version {sidecar.get('format_version')}, "
                f"this nnlat reads {ENSEMBLE_FORMAT_VERSION}"
            )
        if any(Path(n).name != n for n in names):  # members live inside the directory
            raise PredictorError(f"ensemble {directory} names a member outside itself")
        info = {"name": sidecar["name"]} if sidecar.get("name") else None
        return cls([Predictor.load(directory / n) for n in names], info)


def load_saved(directory: Path | str) -> Predictor | Ensemble:
    """The predictor or ensemble saved in ``directory``.

    Example:
        >>> import tempfile
        >>> from nnlat.testing.records import toy_predictor
        >>> saved = Ensemble([toy_predictor(seed=0)[0]]).save(tempfile.mkdtemp() + "/e")
        >>> type(load_saved(saved)).__name__
        'Ensemble'
    """
    if (Path(directory) / ENSEMBLE_FILE).is_file():
        return Ensemble.load(directory)
    return Predictor.load(directory)


def combined_result(results: Sequence[TrainResult]) -> TrainResult:
    """What training several members did, as one summary: the mean of their best
    validation MAPEs, their total seconds; epochs, history and learning rate are the
    first member's.

    Example:
        >>> both = combined_result([TrainResult(3, 0.1, seconds=2.0), TrainResult(5, 0.3)])
        >>> both.best_epoch, round(both.best_valid_mape, 3), both.seconds
        (3, 0.2, 2.0)
    """
    valid = [r.best_valid_mape for r in results if r.best_valid_mape is not None]
    return dataclasses.replace(
        results[0],
        best_valid_mape=float(np.mean(valid)) if valid else None,
        seconds=sum(r.seconds for r in results),
    )


def _geometric_mean(values: Sequence[np.ndarray]) -> np.ndarray:
    """The element-wise geometric mean of positive arrays."""
    return np.exp(np.mean(np.log(np.stack(values)), axis=0))
