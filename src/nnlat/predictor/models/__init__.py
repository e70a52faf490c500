"""Predictor models: the NNLP, BRP-NAS and kernel-level ("TPU") graph networks, and the
baselines of NNLQP Table 3."""
