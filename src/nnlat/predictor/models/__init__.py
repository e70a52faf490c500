"""Predictor models: the NNLP and BRP-NAS graph networks and the baselines of NNLQP Table 3."""
