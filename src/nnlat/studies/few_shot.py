"""Few-shot adaptation to an unseen device (HELP; MAPLE Table 1), on published tables.

The protocol of MAPLE (§4, Table 1), which follows HELP: pre-train one multi-platform
predictor on 900 architectures of each training device; show it k latencies of a device
it has never seen; predict that device's other architectures. When the target device is
one of the training file's devices, it is left out of the pool it is adapted from
(leave-one-device-out), together with the other batch sizes of the same hardware
(``1080ti_32`` when the target is ``1080ti_1``): those would make it a seen device.

Graphs are the architectures' cell graphs (:mod:`nnlat.datasets.cell_graphs`), read
straight from the CSV files. Adaptation sees the k latencies and nothing else of the
target; three ways to use them are compared (:data:`MODES`):

* ``shift``: a new head copied from the training head that best matches the k latencies
  up to a constant factor, with that factor folded in; no training (the baseline);
* ``heads``: that head, then fine-tuned on the k samples with the backbone frozen;
* ``all``: that head, then backbone and heads fine-tuned on the k samples.

Which k architectures the target is measured on (:data:`SHOT_CHOICES`):

* ``random``: for a seed, the first k of one random order of the target's architectures
  (the 3 shots are among the 10, ...); the test set is every architecture after the
  largest k, one test set for all k and modes;
* ``spread``: chosen the way HELP chooses reference architectures, to be informative —
  the target's architectures sorted by their mean predicted latency on the training
  devices, cut into k equal bins, one drawn from each; so the shots span the space from
  the fastest to the slowest networks instead of, by chance, three alike ones. The test
  set is every architecture not among the shots of any k.

Either way, only the target's latencies of the shots are read.
Pre-trained predictors are saved by what defines them and reused; results accumulate in
a JSON-lines file, so an interrupted study resumes.
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

from nnlat.datasets.cell_graphs import cell_records
from nnlat.datasets.published import LatencyTable
from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import accuracy_report, spearman
from nnlat.predictor.predictor import NETWORKS, Predictor, to_data
from nnlat.predictor.training import OnEpoch, TrainSettings, predict_log
from nnlat.predictor.transfer import (
    FINE_TUNE_SETTINGS,
    MIN_RECORDS_FOR_VALIDATION,
    fine_tune,
    with_new_heads,
)
from nnlat.studies.paper_figures import published_figures
from nnlat.studies.results import Results, read_jsonl, record_result

MODES = ("shift", "heads", "all")
SHOT_CHOICES = ("random", "spread")
SHOTS = (3, 10, 32, 100)
TRAIN_ARCHS = 900  # per training device, as MAPLE and HELP
# Pre-training sees ~10,000 small graphs: bigger batches than NNLQP's 16 keep an epoch
# to a few seconds on a CPU, and the validation MAPE flattens within ~50 epochs.
PRETRAIN_SETTINGS = TrainSettings(epochs=80, batch_size=64, patience=12)
# Adapting to k samples, two budgets. Below LARGE_K: one Adam step per epoch (k ≤ batch),
# a tenth of NNLQP's learning rate, few epochs. Noisy devices (the HELP CPUs and phones:
# XGBoost fitted on 900 of their own latencies gets only 52-62 % of the rest within
# ±10 %) punish anything faster: on silver_4114 (a development target, k = 3 to 100),
# lr 3e-4 for 100 epochs lost 5-20 points of Acc(10 %) to the plain shift, while 1e-4
# for 30 epochs stayed within 2 points of it or above.
ADAPT_SETTINGS = FINE_TUNE_SETTINGS.model_copy(update={"lr": 1e-4, "epochs": 30, "batch_size": 128})
# From LARGE_K on, the validation share (20 %) holds MIN_RECORDS_FOR_VALIDATION records,
# enough for early stopping to guard a real budget: NNLQP's transfer settings in batches
# of 16. Decided on the development targets silver_4114 and pixel3 of both spaces
# (`python scripts/few_shot_budget.py FILE --space S --budgets
# all:1e-4:30:128,all:3e-4:100:16`; 3 seeds), Acc(10 %) at k = 100, gentle → this:
# pixel3 67.7 → 85.2 (FBNet) and 15.8 → 27.2 (NAS-Bench-201), silver_4114 96.4 → 96.4
# and 70.1 → 70.1. At k = 32 (6 validation records) the same budget lost 0.8-4.1
# points on three of the four.
LARGE_K = math.ceil(MIN_RECORDS_FOR_VALIDATION / FINE_TUNE_SETTINGS.valid_fraction)
LARGE_K_SETTINGS = FINE_TUNE_SETTINGS.model_copy(update={"batch_size": 16})
OnResult = Callable[["FewShotResult"], None]
# Called when pre-training for a pool starts: (pool) → an epoch callback (or None).
OnPretrain = Callable[[Sequence[str]], OnEpoch | None]


class FewShotError(NnlatError):
    """The study cannot run as asked (devices, shots, spaces)."""


@dataclass(frozen=True)
class FewShotResult:
    """One target device, one k, one mode, one seed.

    Attributes:
        target: the target device (its column in the target file).
        shots: k, the target latencies adaptation saw.
        seed: the draw of the shots.
        mode: a name of :data:`MODES`.
        pool: the training devices the predictor was pre-trained on.
        test_size: target architectures tested.
        metrics: ``mape``, ``rmspe``, ``acc_1``, ``acc_5``, ``acc_10`` and ``spearman``.
        copied_from: the training device whose head the new head started from.
        seconds: adaptation time.
        choice: how the shots were chosen (:data:`SHOT_CHOICES`).
    """

    target: str
    shots: int
    seed: int
    mode: str
    pool: list[str]
    test_size: int
    metrics: dict[str, float]
    copied_from: str
    seconds: float
    choice: str = "random"


def training_pool(
    train: LatencyTable, devices: Sequence[str], target: LatencyTable, name: str
) -> list[str]:
    """The training devices minus every column of the target's own hardware.

    Platform names carry the dataset (``1080ti-help1.0-fp32``), so a device of another
    file is never mistaken for a training one.

    Example:
        >>> import numpy as np
        >>> from pathlib import Path
        >>> from nnlat.datasets.published import device_column
        >>> cols = [device_column(c, "help") for c in ("1080ti_1", "1080ti_32", "pixel3")]
        >>> t = LatencyTable(Path("help.csv"), "fbnet", [], [], cols, np.zeros((0, 3)))
        >>> training_pool(t, ["1080ti_1", "1080ti_32", "pixel3"], t, "1080ti_32")
        ['pixel3']
    """
    hardware = target.device(name).platform.name
    return [d for d in devices if train.device(d).platform.name != hardware]


def _pretrain_key(
    train: LatencyTable, pool: Sequence[str], archs: int, network: str,
    config: dict[str, Any], settings: TrainSettings,
) -> str:  # fmt: skip
    # The network's defaults are part of the key: a pre-training saved before a default
    # changed (NNLP's readout) must not be reused as if it had today's.
    what = [train.path.name, len(train.archs), sorted(pool), archs, network]
    what.append({**NETWORKS.get(network).defaults(), **config})
    what.append(settings.model_dump(exclude={"device"}))
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def pretrained_cache() -> Path:
    """Where pre-trained predictors are kept between runs: the user's cache folder."""
    return Path(platformdirs.user_cache_dir("nnlat", appauthor=False)) / "few-shot"


def pretrain(
    train: LatencyTable,
    pool: Sequence[str],
    *,
    archs: int = TRAIN_ARCHS,
    network: str = "nnlp",
    config: dict[str, Any] | None = None,
    settings: TrainSettings = PRETRAIN_SETTINGS,
    cache_dir: Path | None = None,
    on_epoch: OnEpoch | None = None,
) -> Predictor:
    """One predictor with a head per device of ``pool``, on ``archs`` architectures each.

    The architectures are ``train.sample(archs)`` (the same ids for every device). With
    ``cache_dir`` the predictor is saved under a key of everything above and loaded
    instead of retrained next time.
    """
    key = _pretrain_key(train, pool, archs, network, config or {}, settings)
    saved = cache_dir / key if cache_dir is not None else None
    if saved is not None and (saved / "predictor.json").exists():
        return Predictor.load(saved)
    sample = train.sample(archs)
    records = [r for device in pool for r in cell_records(sample, device)]
    predictor, _ = Predictor.fit(
        records, network=network, settings=settings, config=config, on_epoch=on_epoch
    )
    if saved is not None:
        predictor.save(saved)
    return predictor


def adapt_settings(shots: int, seed: int = 0) -> TrainSettings:
    """How to fine-tune on ``shots`` target latencies: gently below :data:`LARGE_K`.

    Example:
        >>> adapt_settings(10).epochs, adapt_settings(100).epochs, LARGE_K
        (30, 100, 100)
    """
    chosen = LARGE_K_SETTINGS if shots >= LARGE_K else ADAPT_SETTINGS
    return chosen.model_copy(update={"seed": seed})


def adapt(
    predictor: Predictor, shots: Sequence[LatencyRecord], mode: str, seed: int
) -> tuple[Predictor, str]:
    """``predictor`` adapted to the platform of ``shots`` (records) in ``mode``.

    Returns:
        The adapted copy and the platform whose head the new one started from.
    """
    if mode == "shift":
        adapted, heads = with_new_heads(predictor, shots, seed)
    else:
        settings = adapt_settings(len(shots), seed)
        part = "heads" if mode == "heads" else "all"
        adapted, _ = fine_tune(predictor, shots, settings=settings, part=part)
        heads = adapted.info["fine_tuned_on"]["new_heads"]
    return adapted, heads[shots[0].platform]["copied_from"]


def pool_speed(predictor: Predictor, records: Sequence[LatencyRecord]) -> np.ndarray:
    """Each record's mean predicted log-latency over the predictor's (training) devices.

    What ``spread`` shots are ranked by; the records' latencies are never read.
    """
    predicted = predictor.predict_all([r.raw for r in records])
    return np.mean(np.log(np.stack(list(predicted.values()))), axis=0)


def draw_shots(
    count: int, shots: Sequence[int], seed: int, speed: np.ndarray | None = None
) -> tuple[dict[int, list[int]], list[int]]:
    """The indices (of ``count`` records) to adapt from, per k, and those to test on.

    Without ``speed`` the shots are ``random``; with it (:func:`pool_speed`) they are
    ``spread``: one per k-th of the records ranked by it.

    Example:
        >>> picks, test = draw_shots(10, (2, 3), seed=0)
        >>> picks[2] == picks[3][:2], len(test)
        (True, 7)
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(count).tolist()
    if speed is None:
        return {k: order[:k] for k in shots}, order[max(shots) :]
    bins = {k: np.array_split(np.argsort(speed, kind="stable"), k) for k in shots}
    picks = {k: [int(rng.choice(b)) for b in bins[k]] for k in shots}
    used = {i for chosen in picks.values() for i in chosen}
    return picks, [i for i in order if i not in used]


def read_results(path: Path) -> list[FewShotResult]:
    """The results a previous run wrote (none if the file does not exist)."""
    return read_jsonl(path, FewShotResult)


def _check(
    train: LatencyTable,
    target: LatencyTable,
    shots: Sequence[int],
    modes: Sequence[str],
    choice: str,
) -> None:
    if train.space != target.space:
        raise FewShotError(f"train file is {train.space}, target file {target.space}: one space")
    unknown = sorted(set(modes) - set(MODES))
    if unknown or not modes:
        raise FewShotError(f"unknown modes {unknown}; known: {', '.join(MODES)}")
    if choice not in SHOT_CHOICES:
        raise FewShotError(f"unknown shot choice {choice!r}; known: {', '.join(SHOT_CHOICES)}")
    if not shots or min(shots) < 1:
        raise FewShotError(f"shots must be positive counts, got {list(shots)}")


@dataclass(frozen=True)
class FewShotConfig:
    """What to run.

    Attributes:
        train_devices, target_devices: columns to use (default: all of each file).
        shots: the k values.
        seeds: draws of the shots (pre-training is the same for all).
        modes: names from :data:`MODES`.
        choice: how the shots are chosen, a name of :data:`SHOT_CHOICES`.
        train_archs: architectures per training device.
        network, config, pretrain_settings: the predictor and how it is pre-trained.
        results_path: JSON lines to resume from and append to.
        pretrained_dir: where pre-trained predictors are kept between runs.
        fit_missing: False only reads what ``results_path`` holds.
        command: the command that ran the study, for the report.
    """

    train_devices: tuple[str, ...] = ()
    target_devices: tuple[str, ...] = ()
    shots: tuple[int, ...] = SHOTS
    seeds: tuple[int, ...] = (0,)
    modes: tuple[str, ...] = MODES
    choice: str = "random"
    train_archs: int = TRAIN_ARCHS
    network: str = "nnlp"
    config: Mapping[str, Any] = field(default_factory=dict)
    pretrain_settings: TrainSettings = PRETRAIN_SETTINGS
    results_path: Path | None = None
    pretrained_dir: Path | None = None
    fit_missing: bool = True
    command: str = ""


def run(
    config: FewShotConfig,
    train: LatencyTable,
    target: LatencyTable,
    *,
    on_result: OnResult | None = None,
    on_pretrain: OnPretrain | None = None,
) -> Results[FewShotConfig, FewShotResult]:
    """Run every (target, k, mode, seed) not yet in ``results_path``; return them all.

    Args:
        config: what to run.
        train: the table the predictor is pre-trained on.
        target: the table of the devices to adapt to (may be ``train``: then each target
            is left out of its own pool).
        on_result: called after each new result.
        on_pretrain: called with each target's pool before its predictor is pre-trained
            (or loaded from ``pretrained_dir``); returns the training's epoch callback.

    Raises:
        FewShotError: different spaces, unknown modes, an empty pool, too few target
            architectures for the largest k.
        PublishedDataError: an unknown device.
    """
    shots, seeds, modes, choice = config.shots, config.seeds, config.modes, config.choice
    results_path = config.results_path
    results = read_results(results_path) if results_path else []
    if not config.fit_missing:
        return Results(config, results)
    _check(train, target, shots, modes, choice)
    train_devices = list(config.train_devices or [d.column for d in train.devices])
    target_devices = list(config.target_devices or [d.column for d in target.devices])
    done = {(r.target, r.shots, r.seed, r.mode, tuple(r.pool), r.choice) for r in results}
    most = max(shots)
    for name in target_devices:
        pool = training_pool(train, train_devices, target, name)
        if not pool:
            raise FewShotError(f"no training device is left once {name!r} is held out")
        todo = [
            (seed, k, mode)
            for seed in seeds for k in shots for mode in modes
            if (name, k, seed, mode, tuple(pool), choice) not in done
        ]  # fmt: skip
        if not todo:
            continue
        records = cell_records(target, name)
        if len(records) <= most:
            raise FewShotError(f"{name} has {len(records)} architectures: too few for k={most}")
        epochs = on_pretrain(pool) if on_pretrain is not None else None
        predictor = pretrain(
            train, pool, archs=config.train_archs, network=config.network,
            config=dict(config.config), settings=config.pretrain_settings,
            cache_dir=config.pretrained_dir, on_epoch=epochs,
        )  # fmt: skip
        new_head = len(predictor.platforms)  # every adapted copy appends exactly one head
        encoded = [to_data(predictor.schema.encode(r.raw), new_head) for r in records]
        speed = pool_speed(predictor, records) if choice == "spread" else None
        for seed in sorted({s for s, _, _ in todo}):
            picks, rest = draw_shots(len(records), shots, seed, speed)
            data = [encoded[i] for i in rest]
            truth = np.array([records[i].latency_ms for i in rest])
            for _, k, mode in [t for t in todo if t[0] == seed]:
                start = time.perf_counter()
                adapted, source = adapt(predictor, [records[i] for i in picks[k]], mode, seed)
                predicted = np.exp(predict_log(adapted.net, data))
                metrics = accuracy_report(truth, predicted)
                metrics["spearman"] = spearman(truth, predicted)
                result = FewShotResult(
                    name, k, seed, mode, pool, len(rest), metrics, source,
                    time.perf_counter() - start, choice,
                )  # fmt: skip
                record_result(results, result, results_path, on_result)
    return Results(config, results)


def summary(results: Sequence[FewShotResult]) -> list[dict[str, Any]]:
    """Per (shot choice, k, mode): the metrics' mean over targets (each first over seeds).

    Example:
        >>> r = FewShotResult("a", 3, 0, "heads", ["b"], 9, {"acc_10": 0.5}, "b", 0.1)
        >>> from dataclasses import replace
        >>> summary([r, replace(r, target="c", metrics={"acc_10": 1.0})])
        [{'choice': 'random', 'shots': 3, 'mode': 'heads', 'targets': 2, 'acc_10': 0.75}]
    """
    rows = []
    keys = {(r.choice, r.shots, r.mode) for r in results}
    for choice, k, mode in sorted(keys, key=lambda t: (t[0], t[1], MODES.index(t[2]))):
        group = [r for r in results if (r.choice, r.shots, r.mode) == (choice, k, mode)]
        targets = sorted({r.target for r in group})
        row: dict[str, Any] = {"choice": choice, "shots": k, "mode": mode, "targets": len(targets)}
        for metric in group[0].metrics:
            per_target = [
                statistics.mean(r.metrics[metric] for r in group if r.target == t) for t in targets
            ]
            row[metric] = statistics.mean(per_target)
        rows.append(row)
    return rows


def _published(k: int) -> str:
    """The published figures at ``k`` shots (``studies/published/few_shot.json``), or "–"."""
    cells = [
        f"{f['who']}: " + ", ".join(
            f"{label} {f[key]:g}"
            for label, key in (("Acc(10 %)", "acc_10"), ("Spearman", "spearman"))
            if f[key] is not None
        )
        for f in published_figures("few_shot")
        if f["shots"] == k
    ]  # fmt: skip
    return "; ".join(cells) or "–"


def render(study: Results[FewShotConfig, FewShotResult]) -> str:
    """The report: means over target devices per (k, mode), then every device.

    Example:
        >>> r = FewShotResult("a", 3, 0, "shift", ["b"], 9,
        ...                   {"acc_5": 0.2, "acc_10": 0.5, "mape": 0.1, "spearman": 0.9}, "b", 0.1)
        >>> row = "| random | 3 | shift | 1 | 50.0 | 20.0 | 10.0 % | 0.900 |"
        >>> row in render(Results(FewShotConfig(command="nnlat"), [r]))
        True
    """
    results, command = study.rows, study.config.command
    seeds = sorted({r.seed for r in results})
    lines = [
        "# Few-shot adaptation to unseen devices (HELP / MAPLE protocol)",
        "",
        f"Made by `{command}`. Each target device is predicted by a predictor pre-trained"
        " on the other devices (leave-one-device-out; other batch sizes of the same hardware"
        " left out too) and adapted from k of the target's latencies; tested on the target's"
        f" architectures after the largest k of each draw; seeds {seeds}, averaged per"
        " device, then over devices. Modes: `shift` = closest training head rescaled (no"
        " training), `heads` = that head fine-tuned, `all` = backbone and head fine-tuned.",
        "",
        "| shots | k | mode | devices | Acc(10 %) | Acc(5 %) | MAPE | Spearman | published |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in summary(results):
        lines.append(
            f"| {row['choice']} | {row['shots']} | {row['mode']} | {row['targets']} |"
            f" {row['acc_10'] * 100:.1f} |"
            f" {row['acc_5'] * 100:.1f} | {row['mape'] * 100:.1f} % | {row['spearman']:.3f} |"
            f" {_published(row['shots'])} |"
        )
    shots = sorted({r.shots for r in results})
    ways = sorted({(r.choice, r.mode) for r in results}, key=lambda t: (t[0], MODES.index(t[1])))
    lines += [
        "",
        "Per device: Acc(10 %) (Spearman) for each k, and the heads adapted from.",
        "",
        "| device | shots | mode | " + " | ".join(f"k = {k}" for k in shots) + " | from |",
        "|---|---|---|" + "---|" * len(shots) + "---|",
    ]
    for target in dict.fromkeys(r.target for r in results):
        for way in ways:
            mine = [r for r in results if (r.target, (r.choice, r.mode)) == (target, way)]
            cells = []
            for k in shots:
                group = [r for r in mine if r.shots == k]
                if not group:
                    cells.append("–")
                    continue
                acc = statistics.mean(r.metrics["acc_10"] for r in group)
                rho = statistics.mean(r.metrics["spearman"] for r in group)
                cells.append(f"{acc * 100:.1f} ({rho:.3f})")
            sources = ", ".join(sorted({r.copied_from for r in mine}))
            lines.append(
                f"| {target} | {way[0]} | {way[1]} | " + " | ".join(cells) + f" | {sources} |"
            )
    return "\n".join(lines) + "\n"
