"""Multi-platform prediction (NNLQP Table 6): one multi-head model or one per platform?

The graphs measured on every platform are split 70 : 30 by graph (the same graphs are
test graphs on every platform). *multi-head* trains one predictor on all platforms'
training records (Algorithm 1); *per-platform* trains one predictor per platform. Both
are scored per platform on the test graphs, and timed predicting every test graph on
every platform: the multi-head model embeds each graph once and applies all heads.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import accuracy_report
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.training import TrainSettings, split_by_graph
from nnlat.studies.markdown import header
from nnlat.studies.results import Results


@dataclass(frozen=True)
class MultiPlatformConfig:
    """What to run.

    Attributes:
        settings: training settings (seed included) for every model.
        config: NNLP hyper-parameters.
        test_fraction: share of graphs held out for testing.
        command: the command that ran the study, for the report.
    """

    settings: TrainSettings = field(default_factory=TrainSettings)
    config: Mapping[str, object] = field(default_factory=dict)
    test_fraction: float = 0.3
    command: str = ""


@dataclass(frozen=True)
class PlatformScore:
    """One mode on one platform.

    Attributes:
        platform: the platform.
        mode: ``multi-head`` or ``per-platform``.
        metrics: MAPE, RMSPE, Acc(1/5/10 %).
        train_records, test_records: split sizes on this platform.
        predict_seconds: the mode's time to predict every test graph on every platform.
        test_graphs: the test graphs (the same on every platform).
    """

    platform: str
    mode: str
    metrics: dict[str, float]
    train_records: int
    test_records: int
    predict_seconds: float
    test_graphs: int


def run(
    config: MultiPlatformConfig, records: Sequence[LatencyRecord]
) -> Results[MultiPlatformConfig, PlatformScore]:
    """Compare a multi-head predictor with one predictor per platform.

    Args:
        config: what to run.
        records: records of at least two platforms.

    Raises:
        NnlatError: fewer than two platforms.
    """
    settings, test_fraction = config.settings, config.test_fraction
    net_config = dict(config.config)
    platforms = sorted({r.platform for r in records})
    if len(platforms) < 2:
        raise NnlatError("a multi-platform study needs records of at least two platforms")
    train_idx, test_idx = split_by_graph(
        [r.graph_hash for r in records], test_fraction, settings.seed + 1
    )
    train = [records[i] for i in train_idx]
    test = [records[i] for i in test_idx]
    test_raws = {r.graph_hash: r.raw for r in test}
    raws = list(test_raws.values())

    multi, _ = Predictor.fit(train, settings=settings, config=net_config)
    start = time.perf_counter()
    predicted_multi = multi.predict_all(raws)
    seconds = {"multi-head": time.perf_counter() - start}

    singles = {
        p: Predictor.fit(
            [r for r in train if r.platform == p], settings=settings, config=net_config
        )[0]
        for p in platforms
    }
    start = time.perf_counter()
    predicted_single = {p: singles[p].predict_raw(raws, p) for p in platforms}
    seconds["per-platform"] = time.perf_counter() - start

    position = {h: i for i, h in enumerate(test_raws)}
    scores = []
    for platform in platforms:
        mine = [r for r in test if r.platform == platform]
        measured = [r.latency_ms for r in mine]
        rows = [position[r.graph_hash] for r in mine]
        for mode, predicted in (
            ("multi-head", predicted_multi),
            ("per-platform", predicted_single),
        ):
            scores.append(
                PlatformScore(
                    platform=platform,
                    mode=mode,
                    metrics=accuracy_report(measured, predicted[platform][rows]),
                    train_records=sum(r.platform == platform for r in train),
                    test_records=len(mine),
                    predict_seconds=seconds[mode],
                    test_graphs=len(raws),
                )
            )
    return Results(config, scores, len(records))


def render(study: Results[MultiPlatformConfig, PlatformScore]) -> str:
    """The report: Acc(10 %) and MAPE per platform for both modes, and prediction time."""
    seconds = {s.mode: s.predict_seconds for s in study.rows}
    test_graphs = study.rows[0].test_graphs if study.rows else 0
    lines = [
        *header("Multi-platform prediction (NNLQP Table 6)", study.config.command),
        "Graphs split 70 : 30 (the same test graphs on every platform). *multi-head*: one",
        "NNLP with a head per platform; *per-platform*: one NNLP per platform.",
        "",
        "| platform | multi-head Acc(10 %) | per-platform Acc(10 %) "
        "| multi-head MAPE | per-platform MAPE |",
        "|---|---|---|---|---|",
    ]
    by = {(s.platform, s.mode): s.metrics for s in study.rows}
    for platform in sorted({s.platform for s in study.rows}):
        m, p = by[platform, "multi-head"], by[platform, "per-platform"]
        lines.append(
            f"| {platform} | {m['acc_10']:.2%} | {p['acc_10']:.2%} | {m['mape']:.2%} "
            f"| {p['mape']:.2%} |"
        )
    lines += [
        "",
        f"Predicting all {test_graphs} test graphs on every platform: multi-head "
        f"{seconds['multi-head']:.3f} s, per-platform "
        f"{seconds['per-platform']:.3f} s.",
        "",
    ]
    return "\n".join(lines)
