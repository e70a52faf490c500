"""Predictor models: the NNLP graph network and the baselines it is compared with."""
