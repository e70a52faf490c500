"""Latency prediction: graph networks trained on the measured database.

``Predictor`` holds a fitted feature schema, a graph network (NNLP by default) and one
head per platform; ``predict`` / ``predict_many`` answer with the shipped predictor
unless given another. This package imports torch and PyTorch Geometric.
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
