"""Evaluations of latency predictors: every study of the papers nnlat reproduces.

Each study module defines a frozen ``…Config``, ``run(config, records…) -> Results`` and
``render(results) -> str`` (its Markdown report):

* :mod:`unseen_structure`: leave one family out (NNLQP Tables 3-4);
* :mod:`held_out`: real-world models of no training family;
* :mod:`multi_platform`: one multi-head predictor or one per platform (NNLQP Table 6);
* :mod:`transfer`: fine-tuned versus from scratch on k samples (NNLQP Figures 6-7);
* :mod:`brpnas`: BRP-NAS on NAS-Bench-201 (Yue 2021);
* :mod:`few_shot`: adaptation to an unseen device from k latencies (HELP, MAPLE).

The methods compared are registered by name in :mod:`methods`, all with one estimator
contract; results are :class:`~nnlat.studies.results.Results`, kept as JSON lines;
published figures are data in ``published/`` (:mod:`paper_figures`).
"""
