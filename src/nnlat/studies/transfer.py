"""Transfer curves (NNLQP Figures 6-7): pre-trained and fine-tuned, or trained from scratch?

*Unseen family*: pre-train on one platform's records of every other family; then, for
each k, fine-tune on k records of the held-out family, or train from scratch on the
same k records, and test both on that family's records outside the largest k.
*Unseen platform*: pre-train on the source platforms; the k records (and the test
records) come from the target platform. The k samples are a seeded shuffle, nested
(the 32 are among the 100), so the curves differ only by k.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import accuracy_report
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.training import TrainSettings
from nnlat.predictor.transfer import fine_tune, from_scratch, transfer_settings
from nnlat.studies.markdown import header
from nnlat.studies.results import Results

MODES = ("pre-trained", "from-scratch")


@dataclass(frozen=True)
class TransferConfig:
    """What to run.

    Attributes:
        platform: the source platform.
        families: unseen families (pre-trained on ``platform``'s other families).
        targets: unseen platforms (pre-trained on ``platform``).
        ks: the k values.
        settings: training settings (seed included).
        config: NNLP hyper-parameters.
        command: the command that ran the study, for the report.
        plot: the plot's file name, beside the report.
    """

    platform: str
    families: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    ks: tuple[int, ...] = (32, 100, 200)
    settings: TrainSettings = field(default_factory=TrainSettings)
    config: Mapping[str, object] = field(default_factory=dict)
    command: str = ""
    plot: str = "plot.png"


@dataclass(frozen=True)
class TransferPoint:
    """One mode at one k.

    Attributes:
        scenario: ``family:NAME`` or ``platform:NAME``.
        k: fine-tuning (or training) records.
        mode: ``pre-trained`` (fine-tuned) or ``from-scratch``.
        metrics: MAPE, RMSPE, Acc(1/5/10 %) on the test records.
        test_records: how many.
    """

    scenario: str
    k: int
    mode: str
    metrics: dict[str, float]
    test_records: int


def _curve(
    scenario: str,
    pretrained: Predictor,
    pool: list[LatencyRecord],
    ks: Sequence[int],
    seed: int,
    config: dict[str, object] | None,
) -> list[TransferPoint]:
    ks = sorted(ks)
    if len(pool) <= ks[-1]:
        raise NnlatError(
            f"{scenario}: {len(pool)} records, need more than the largest k ({ks[-1]}) to test"
        )
    random.Random(seed).shuffle(pool)
    test = pool[ks[-1] :]
    measured = [r.latency_ms for r in test]
    points = []
    for k in ks:
        shots = pool[:k]
        tuned, _ = fine_tune(pretrained, shots)
        scratch, _ = from_scratch(
            shots, settings=transfer_settings(k, TrainSettings(seed=seed)), config=config
        )
        for mode, model in zip(MODES, (tuned, scratch), strict=True):
            predicted = model.predict_records(test)
            points.append(
                TransferPoint(scenario, k, mode, accuracy_report(measured, predicted), len(test))
            )
    return points


def unseen_family_curve(
    records: Sequence[LatencyRecord],
    platform: str,
    family: str,
    ks: Sequence[int],
    *,
    settings: TrainSettings | None = None,
    config: dict[str, object] | None = None,
) -> list[TransferPoint]:
    """Pre-trained versus from-scratch on ``family`` (unseen in pre-training), over k."""
    settings = settings or TrainSettings()
    mine = [r for r in records if r.platform == platform]
    base = [r for r in mine if r.family != family]
    pool = [r for r in mine if r.family == family]
    if not base or not pool:
        raise NnlatError(f"need records of {family!r} and of other families on {platform!r}")
    pretrained, _ = Predictor.fit(base, settings=settings, config=config)
    return _curve(f"family:{family}", pretrained, pool, ks, settings.seed, config)


def unseen_platform_curve(
    records: Sequence[LatencyRecord],
    sources: Sequence[str],
    target: str,
    ks: Sequence[int],
    *,
    settings: TrainSettings | None = None,
    config: dict[str, object] | None = None,
) -> list[TransferPoint]:
    """Pre-trained on ``sources`` versus from-scratch on ``target``, over k.

    Only ``target`` records of families the sources have are drawn from, so the curve
    measures the new hardware alone, not new structures as well.
    """
    settings = settings or TrainSettings()
    base = [r for r in records if r.platform in sources]
    families = {r.family for r in base}
    pool = [r for r in records if r.platform == target and r.family in families]
    if not base or not pool or target in sources:
        raise NnlatError(f"need records on the sources {list(sources)} and on {target!r}")
    pretrained, _ = Predictor.fit(base, settings=settings, config=config)
    return _curve(f"platform:{target}", pretrained, pool, ks, settings.seed, config)


def run(
    config: TransferConfig, records: Sequence[LatencyRecord]
) -> Results[TransferConfig, TransferPoint]:
    """The curves of every unseen family and platform of ``config``.

    Raises:
        NnlatError: neither a family nor a target platform, or too few records.
    """
    if not config.families and not config.targets:
        raise NnlatError("give an unseen family and/or a target platform")
    options = {"settings": config.settings, "config": dict(config.config)}
    points = []
    for family in config.families:
        points += unseen_family_curve(records, config.platform, family, config.ks, **options)
    for target in config.targets:
        points += unseen_platform_curve(records, [config.platform], target, config.ks, **options)
    return Results(config, points, len(records))


def render(study: Results[TransferConfig, TransferPoint]) -> str:
    """The report: per scenario, MAPE and Acc(10 %) of both modes by k."""
    points = study.rows
    lines = header(
        "Transfer: pre-trained and fine-tuned versus from scratch (NNLQP Figures 6-7)",
        study.config.command,
    )
    for scenario in sorted({p.scenario for p in points}):
        mine = {(p.k, p.mode): p for p in points if p.scenario == scenario}
        test = next(p.test_records for p in points if p.scenario == scenario)
        lines += [
            f"## {scenario} ({test} test records)",
            "",
            "| k | pre-trained MAPE | from-scratch MAPE | pre-trained Acc(10 %) "
            "| from-scratch Acc(10 %) |",
            "|---|---|---|---|---|",
        ]
        for k in sorted({k for k, _ in mine}):
            a, b = mine[k, "pre-trained"].metrics, mine[k, "from-scratch"].metrics
            lines.append(
                f"| {k} | {a['mape']:.2%} | {b['mape']:.2%} | {a['acc_10']:.2%} "
                f"| {b['acc_10']:.2%} |"
            )
        lines.append("")
    lines += [f"![MAPE and Acc(10 %) against k]({study.config.plot})", ""]
    return "\n".join(lines)


def plot(points: Sequence[TransferPoint], path: Path) -> None:
    """MAPE and Acc(10 %) against k, one column per scenario, both modes as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = sorted({p.scenario for p in points})
    fig, axes = plt.subplots(2, len(scenarios), figsize=(4 * len(scenarios), 6), squeeze=False)
    for column, scenario in enumerate(scenarios):
        for mode in MODES:
            mine = sorted(
                (p for p in points if p.scenario == scenario and p.mode == mode), key=lambda p: p.k
            )
            ks = [p.k for p in mine]
            axes[0][column].plot(
                ks, [p.metrics["mape"] * 100 for p in mine], marker="o", label=mode
            )
            axes[1][column].plot(
                ks, [p.metrics["acc_10"] * 100 for p in mine], marker="o", label=mode
            )
        axes[0][column].set_title(scenario, fontsize=9)
        axes[0][column].set_ylabel("MAPE %")
        axes[1][column].set_ylabel("Acc(10 %) %")
        axes[1][column].set_xlabel("k (fine-tuning samples)")
        axes[0][column].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
