"""Latency prediction: graph networks trained on the measured database.

``Predictor`` holds a fitted feature schema, a graph network (NNLP by default) and one
head per platform; ``predict`` / ``predict_many`` answer with the shipped predictor
unless given another. Graph networks are in ``networks/`` (one per module), baselines in
``baselines/`` (one estimator family per module, scikit-learn's contract), and
``estimator.GraphEstimator`` puts a graph network behind that same contract. Evaluations
live in :mod:`nnlat.studies`, never here. This package imports torch and PyTorch Geometric.
"""

from nnlat.predictor.api import Prediction, predict, predict_many
from nnlat.predictor.predictor import NETWORKS, Predictor, PredictorError
from nnlat.predictor.training import TrainResult, TrainSettings

__all__ = [
    "NETWORKS",
    "Prediction",
    "Predictor",
    "PredictorError",
    "TrainResult",
    "TrainSettings",
    "predict",
    "predict_many",
]
