"""Baseline latency predictors, one estimator family per module.

NNLQP Table 3's baselines on any graph (:mod:`linear`, :mod:`kernel_forest`,
:mod:`gradient_boosting`) and BRP-NAS's on NAS-Bench-201 cells (:mod:`cell_encoding`,
:mod:`layerwise`). All follow the estimator contract of :mod:`base`; the studies register
them by name in :mod:`nnlat.studies.methods`.
"""
