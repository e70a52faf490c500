"""Generalisation beyond the zoo: predict real-world models of no training family.

A predictor that has seen only ten CNN families meets OCR and detection networks, audio
LSTMs, transformers and int8 models in use. This protocol trains each method on one
platform's records of a *training set* of zoo families and predicts every record of a
real-world model (records of source ``"real-world"``, measured by
``scripts/measure_realworld.py``); nothing of those models is seen in training, not even
for checkpoint choice. Comparing training sets (the ten NNLQP families against the
broadened zoo) shows what the broader data buys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nnlat.errors import NnlatError
from nnlat.features.records import REAL_WORLD, LatencyRecord
from nnlat.predictor.metrics import acc_within, accuracy_report
from nnlat.predictor.training import TrainSettings
from nnlat.studies.markdown import header
from nnlat.studies.methods import METHODS, MethodContext
from nnlat.studies.results import Results
from nnlat.zoo.registry import CORPUS_FAMILIES, NNLQP_FAMILIES

# The zoo families added to NNLQP's ten for operators the ten never show: attention and
# LayerNorm (vit, seqnet), LSTM/GRU (seqnet), ConvTranspose and Resize (segnet), arbitrary
# wiring (randdag) and a NAS space of mobile blocks (fbnet).
BROAD_FAMILIES = (*NNLQP_FAMILIES, "vit", "randdag", "fbnet", "seqnet", "segnet")
# ...and then small networks (tinynet), for the sub-millisecond regime most real-world
# models are in; and then the real-architecture corpus (transformers' classes, detection,
# OCR, audio, control flow, int8).
TRAINING_SETS: dict[str, tuple[str, ...]] = {
    "nnlqp10": NNLQP_FAMILIES,
    "broad": BROAD_FAMILIES,
    "broad+tiny": (*BROAD_FAMILIES, "tinynet"),
    "broad+tiny+corpus": (*BROAD_FAMILIES, "tinynet", *CORPUS_FAMILIES),
}

OnResult = Callable[["HeldOutResult"], None]


@dataclass(frozen=True)
class HeldOutConfig:
    """What to evaluate.

    Attributes:
        platform: the platform of every record used.
        methods: names registered in :data:`~nnlat.studies.methods.METHODS`.
        training_sets: name → the zoo families trained on.
        settings: graph networks' training (its seed also seeds the baselines).
        config: hyper-parameters of the configurable networks (``--hidden``).
        command: the command that ran the study, for the report.
    """

    platform: str
    methods: tuple[str, ...]
    training_sets: Mapping[str, Sequence[str]] = field(default_factory=lambda: TRAINING_SETS)
    settings: TrainSettings = field(default_factory=TrainSettings)
    config: Mapping[str, object] = field(default_factory=dict)
    command: str = ""


@dataclass(frozen=True)
class HeldOutResult:
    """One method trained on one training set, tested on every real-world model.

    Attributes:
        training_set: name of the family list trained on.
        method: ``nnlp``, ``brpnas`` or a baseline name.
        platform: the platform of all records.
        train_records: training records (validation share included).
        models: real-world model name per test record.
        unseen_ops: per test record, its operators that no training graph has.
        measured_ms, predicted_ms: per test record.
        metrics: MAPE, RMSPE, Acc(1/5/10 %) over the test records.
    """

    training_set: str
    method: str
    platform: str
    train_records: int
    models: list[str]
    unseen_ops: list[list[str]]
    measured_ms: list[float]
    predicted_ms: list[float]
    metrics: dict[str, float]


def run(
    config: HeldOutConfig,
    records: Sequence[LatencyRecord],
    *,
    on_result: OnResult | None = None,
) -> Results[HeldOutConfig, HeldOutResult]:
    """Train every method on every training set of the platform; test on real-world models.

    A training set whose families on the platform are exactly an earlier set's (the broad
    zoo where only NNLQP's ten were measured) is skipped rather than trained twice.

    Raises:
        NnlatError: no real-world records on the platform, or a training set without
            records there (the message names the families to measure).
        UnknownNameError: an unknown method.

    Example:
        >>> from dataclasses import replace
        >>> from nnlat.testing.records import TOY_PLATFORM, toy_records
        >>> recs = [replace(r, source="real-world", family="x") if i % 4 == 0 else r
        ...         for i, r in enumerate(toy_records())]
        >>> sets = {"toy": ["tiny"], "more": ["tiny", "vit"]}
        >>> study = run(HeldOutConfig(TOY_PLATFORM, ("flops-lr",), sets), recs)
        >>> [(r.training_set, len(r.models)) for r in study.rows]
        [('toy', 3)]
    """
    platform = config.platform
    mine = [r for r in records if r.platform == platform]
    test = [r for r in mine if r.source == REAL_WORLD]
    zoo = [r for r in mine if r.source != REAL_WORLD]
    if not test:
        raise NnlatError(
            f"no real-world records on {platform!r}: run scripts/measure_heldout.py -p {platform}"
            f" (models shipped in packages) or scripts/measure_realworld.py -p {platform}"
        )
    context = MethodContext(settings=config.settings, config=config.config)
    results = []
    trained_on: list[set[str]] = []
    for name, families in config.training_sets.items():
        wanted = set(families)
        train = [r for r in zoo if r.family in wanted]
        if not train:
            raise NnlatError(
                f"training set {name!r}: no records of {', '.join(families)} on {platform!r}"
            )
        present = {r.family for r in train}
        if present in trained_on:  # a platform measured on fewer families: nothing new
            continue
        trained_on.append(present)
        seen_ops = {op for r in train for op in r.raw.op_types}
        unseen = [sorted(set(r.raw.op_types) - seen_ops) for r in test]
        measured = [r.latency_ms for r in test]
        for method in config.methods:
            predicted = METHODS.get(method).build(context).fit(train).predict(test)
            result = HeldOutResult(
                training_set=name,
                method=method,
                platform=platform,
                train_records=len(train),
                models=[r.family for r in test],
                unseen_ops=unseen,
                measured_ms=measured,
                predicted_ms=predicted.tolist(),
                metrics=accuracy_report(measured, predicted),
            )
            results.append(result)
            if on_result is not None:
                on_result(result)
    return Results(config, results, len(mine))


def render(study: Results[HeldOutConfig, HeldOutResult]) -> str:
    """The report: a summary per (training set, method) and the per-model predictions."""
    results, command, sets = study.rows, study.config.command, study.config.training_sets
    if not results:
        return "# Held-out real-world models\n\nNo results.\n"
    first = results[0]
    lines = [
        *header("Held-out real-world models: generalisation beyond the zoo", command),
        f"Platform `{first.platform}`. Each method is trained on one platform's records of a",
        "training set of zoo families and predicts real-world models of no zoo family",
        "(OCR, detection, speech LSTMs, a BERT encoder, int8 and control-flow models).",
        "Training sets: "
        + "; ".join(
            f"`{name}` = {', '.join(sets.get(name, ('?',)))}"
            for name in dict.fromkeys(r.training_set for r in results)
        )
        + ".",
        *(
            [
                "Training sets not listed hold no family beyond an earlier one on this"
                " platform, so they were not trained again."
            ]
            if {r.training_set for r in results} != set(sets)
            else []
        ),
        "",
        "| training set | records | method | MAPE ↓ | RMSPE ↓ | Acc(10 %) ↑ | Acc(25 %) ↑ |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        within_25 = acc_within(r.measured_ms, r.predicted_ms, 0.25)
        lines.append(
            f"| {r.training_set} | {r.train_records} | {r.method} | {r.metrics['mape'] * 100:.1f} %"
            f" | {r.metrics['rmspe'] * 100:.1f} % | {r.metrics['acc_10'] * 100:.0f} %"
            f" | {within_25 * 100:.0f} % |"
        )
    lines += ["", "![Predicted against measured, per training set](plot.png)"]
    columns = [f"{r.method} ({r.training_set})" for r in results]
    unseen_by_set = {r.training_set: r.unseen_ops for r in results}
    lines += [
        "",
        "## Per model: predicted ms (error)",
        "",
        "| model | measured ms | " + " | ".join(columns)
        + f" | ops unseen by {' / '.join(unseen_by_set)} |",
        "|---" * (len(columns) + 3) + "|",
    ]  # fmt: skip
    for i, model in enumerate(first.models):
        measured = first.measured_ms[i]
        cells = [
            f"{r.predicted_ms[i]:.3g} ({(r.predicted_ms[i] / measured - 1) * 100:+.0f} %)"
            for r in results
        ]
        unseen = " / ".join(", ".join(ops[i]) or "–" for ops in unseen_by_set.values())
        lines.append(f"| {model} | {measured:.3g} | " + " | ".join(cells) + f" | {unseen} |")
    return "\n".join(lines) + "\n"


def plot(results: Sequence[HeldOutResult], path: Path) -> None:
    """Predicted against measured latency, log-log, one panel per training set, a colour
    per method; the dashed band is ±25 %."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = list(dict.fromkeys(r.training_set for r in results))
    fig, axes = plt.subplots(1, len(sets), figsize=(4.2 * len(sets), 4.2), squeeze=False)
    for axis, name in zip(axes[0], sets, strict=True):
        mine = [r for r in results if r.training_set == name]
        values = [v for r in mine for v in (*r.measured_ms, *r.predicted_ms) if v > 0]
        low, high = min(values) / 1.5, max(values) * 1.5
        for r in mine:
            axis.scatter(r.measured_ms, r.predicted_ms, s=14, alpha=0.8, label=r.method)
        axis.plot([low, high], [low, high], color="black", linewidth=0.8)
        for factor in (0.75, 1.25):
            axis.plot([low, high], [low * factor, high * factor], "--", color="grey", lw=0.6)
        axis.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high))
        axis.set_title(f"trained on {name} ({mine[0].train_records} records)", fontsize=9)
        axis.set_xlabel("measured ms")
        axis.set_ylabel("predicted ms")
        axis.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
