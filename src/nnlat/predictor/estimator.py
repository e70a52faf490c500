"""The graph networks as estimators: a thin adapter of :class:`Predictor` to the contract.

Studies compare graph networks and baselines through one contract (scikit-learn's, see
:mod:`nnlat.predictor.baselines.base`). :class:`GraphEstimator` stores a network name,
its configuration and training settings; ``fit`` trains a :class:`Predictor` with
:meth:`Predictor.fit` (a validation share for early stopping included) and ``predict``
answers with :meth:`Predictor.predict_records`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Self

import numpy as np

from nnlat.features.records import LatencyRecord
from nnlat.predictor.baselines.base import check_fitted
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.training import TrainSettings


class GraphEstimator:
    """A registered graph network, trained on records, behind ``fit`` / ``predict``.

    Args:
        network: a name registered in :data:`~nnlat.predictor.predictor.NETWORKS`.
        config: network hyper-parameters overriding its defaults.
        settings: training settings (their ``seed`` is replaced by ``random_state``).
        random_state: seed of the validation draw, initial weights and batch order.
        targets: the targets to learn (a head per platform and target); ``predict``
            answers the first, :meth:`predict_target` any.

    Attributes:
        predictor_: the trained :class:`Predictor`.
        train_result_: what training did (:class:`~nnlat.predictor.training.TrainResult`).

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> settings = TrainSettings(epochs=2, batch_size=4)
        >>> model = GraphEstimator(config={"hidden": 8}, settings=settings).fit(toy_records())
        >>> model.predict(toy_records()[:3]).shape
        (3,)
    """

    def __init__(
        self,
        network: str = "nnlp",
        config: Mapping[str, object] | None = None,
        settings: TrainSettings | None = None,
        random_state: int = 0,
        targets: Sequence[str] = ("latency",),
    ) -> None:
        self.network = network
        self.config = config
        self.settings = settings
        self.random_state = random_state
        self.targets = targets

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Train the network on ``records`` (one head per platform in them)."""
        settings = (self.settings or TrainSettings()).model_copy(update={"seed": self.random_state})
        self.predictor_, self.train_result_ = Predictor.fit(
            records,
            network=self.network,
            settings=settings,
            config=dict(self.config or {}),
            targets=tuple(self.targets),
        )
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """The first target per record (latency in ms by default; float64, input order)."""
        return self.predict_target(records, self.targets[0])

    def predict_target(self, records: Sequence[LatencyRecord], target: str) -> np.ndarray:
        """``target`` per record, in its unit (float64, input order)."""
        check_fitted(self, "predictor_")
        return np.asarray(self.predictor_.predict_records(records, target), dtype=np.float64)
