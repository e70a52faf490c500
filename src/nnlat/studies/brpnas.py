"""Reproduce BRP-NAS's latency predictor on NAS-Bench-201 published data (Yue 2021, §4).

The protocol of Yue (2021) and BRP-NAS: on one device's latencies of the NAS-Bench-201
networks, draw 900 training and 100 validation networks at random, test on the rest,
report the share of test networks predicted within ±1 %, ±5 % and ±10 %, averaged over
seeds. Here every method sees the same draw for a seed:

* graph methods run through :class:`Predictor` on either nnlat's ONNX graphs of the
  imported networks or the networks' *cell graphs* read straight off the published file
  (:mod:`nnlat.datasets.cell_graphs`, BRP-NAS's own input, ten times smaller): ``gcn``
  is the BRP-NAS GCN as the paper has it (global node readout, no static features, its
  training configuration: AdamW with weight decay 5e-4, lr 8e-4 halved after 10 epochs
  without progress, batch 10, 250 epochs, patience 35, an L1 relative loss);
  ``gcn-identity`` and ``gcn-random`` are the ablations of Yue's Table 4;
  ``gcn-directed`` convolves along the data flow only (our GCN takes edges both ways);
  ``gcn-b1`` trains as the authors' released code does (batch 1, lr 4e-4);
  ``gcn-b4`` the same at batch 4 (Yue's Table 6 batch-size study); ``gcn-wd5e-3`` the
  paper's configuration with ten times its weight decay; ``gcn-x3`` is three
  ``gcn`` fits of different seeds, their predictions averaged (:data:`ENSEMBLES`);
  ``nnlp`` is nnlat's own predictor with its default training (``nnlp-sum`` with the
  paper's sum readout, nnlat's default before the mean);
* cell-encoding baselines (:mod:`nnlat.predictor.baselines.cell_encoding`) see the
  architecture string: ``lr``, ``xgboost`` and ``layerwise``.

Yue's Table 1 also trains on 2,000 networks; so that sizes compare on one test set, the
test set of a seed is the networks left after the first 2,100 of its draw (``largest``),
not "everything but the 1,000".

Results accumulate in a JSON-lines file, one line per (method, train size, seed):
rerunning skips what is there.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import accuracy_report, spearman
from nnlat.predictor.training import TrainSettings
from nnlat.store import Store
from nnlat.studies.markdown import mean_sd
from nnlat.studies.methods import METHODS, MethodContext
from nnlat.studies.paper_figures import published_figures
from nnlat.studies.results import Results, read_jsonl, record_result

VALIDATION = 100
LARGEST_TRAIN = 2000  # Yue's Table 1 trains on up to 2,000 networks
# The methods this study compares, in the order of its table.
METHOD_ORDER = (
    "gcn", "gcn-identity", "gcn-random", "gcn-directed", "gcn-b1", "gcn-b4", "gcn-wd5e-3",
    "gcn-l1", "nnlp", "nnlp-sum", "gcn-x3", "gcn-live", "gcn-random-live", "nnlp-live",
    "nnlp-sum-live", "cell-lr", "cell-xgboost", "layerwise",
)  # fmt: skip
ONNX_GRAPHS = "networks with a distinct ONNX graph"

OnResult = Callable[["StudyResult"], None]


@dataclass(frozen=True)
class BrpnasStudyConfig:
    """What to run.

    Attributes:
        methods: names registered in :data:`~nnlat.studies.methods.METHODS`.
        seeds: the draws (and training seeds).
        train_sizes: training networks per draw (validation comes on top).
        platform: the device the records are of (for the report).
        graphs: what the inputs are (ONNX graphs or cell graphs), for the report.
        results_path: JSON lines to resume from and append to.
        epochs: cap the graph methods' epochs (a quick run); None: their own.
        validation: validation networks per draw (the paper's 100).
        largest: the test set of a seed starts after ``largest + validation`` networks of
            its draw, whatever ``train_sizes`` are run, so results of separate runs share
            their test sets.
        fit_missing: False only reads what ``results_path`` holds.
        command: the command that ran the study, for the report.
    """

    methods: tuple[str, ...]
    seeds: tuple[int, ...]
    train_sizes: tuple[int, ...] = (900,)
    platform: str = ""
    graphs: str = ONNX_GRAPHS
    results_path: Path | None = None
    epochs: int | None = None
    validation: int = VALIDATION
    largest: int = LARGEST_TRAIN
    fit_missing: bool = True
    command: str = ""


@dataclass(frozen=True)
class StudyResult:
    """One method, one training size, one seed.

    Attributes:
        method: a registered method name.
        train_size: training networks (validation excluded).
        seed: the draw (and training seed).
        test_size: test networks.
        metrics: ``mape``, ``rmspe``, ``acc_1``, ``acc_5``, ``acc_10`` (fractions) and
            ``spearman``.
        fit_seconds: training time.
        largest: the test set started after ``largest`` + validation networks of the draw.
    """

    method: str
    train_size: int
    seed: int
    test_size: int
    metrics: dict[str, float]
    fit_seconds: float
    largest: int = LARGEST_TRAIN


def _split(
    n: int, seed: int, train_size: int, largest: int, validation: int
) -> tuple[list[int], list[int]]:
    """(fit pool = train + validation, test) indices of ``n`` records for one seed."""
    if train_size > largest:
        raise NnlatError(f"at most {largest} training networks (asked for {train_size})")
    if largest + validation >= n:
        raise NnlatError(
            f"{n} networks cannot hold {largest} training + {validation} validation + a test set"
        )
    order = np.random.default_rng(seed).permutation(n).tolist()
    return order[: train_size + validation], order[largest + validation :]


def nasbench201_archs(store: Store) -> dict[str, str]:
    """Graph hash → architecture string of the store's NAS-Bench-201 models (their recipes)."""
    return {
        m.graph_hash: m.zoo_spec["config"]["arch"]
        for m in store.list_models(family="nasbench201")
        if m.zoo_spec is not None
    }


def read_results(path: Path) -> list[StudyResult]:
    """The results a previous run wrote (none if the file does not exist)."""
    return read_jsonl(path, StudyResult)


def run(
    config: BrpnasStudyConfig,
    records: Sequence[LatencyRecord],
    archs: Mapping[str, str] | None = None,
    *,
    on_result: OnResult | None = None,
) -> Results[BrpnasStudyConfig, StudyResult]:
    """Run every (method, train size, seed) not yet in ``results_path``; return them all.

    Every method of a seed trains on the same networks: a graph network carves its
    ``validation`` networks out of the fit pool, a cell baseline sets the same ones aside.

    Args:
        config: what to run.
        records: one device's records, one per network.
        archs: graph hash → architecture string (for the cell methods).
        on_result: called after each new result.

    Raises:
        NnlatError: a split the records cannot hold.
        UnknownNameError: an unknown method.
    """
    for method in config.methods:
        METHODS.get(method)  # fail before any training
    path = config.results_path
    results = read_results(path) if path is not None else []
    done = {(r.method, r.train_size, r.seed, r.largest) for r in results}
    measured = np.array([r.latency_ms for r in records])
    for seed in config.seeds if config.fit_missing else ():
        for size in config.train_sizes:
            fit_idx, test_idx = _split(len(records), seed, size, config.largest, config.validation)
            fit = [records[i] for i in fit_idx]
            test = [records[i] for i in test_idx]
            settings = TrainSettings(
                seed=seed,
                valid_fraction=config.validation / len(fit),
                **({"epochs": config.epochs} if config.epochs else {}),
            )
            context = MethodContext(settings=settings, archs=archs or {})
            for method in config.methods:
                if (method, size, seed, config.largest) in done:
                    continue
                start = time.perf_counter()
                predicted = METHODS.get(method).build(context).fit(fit).predict(test)
                truth = measured[test_idx]
                metrics = accuracy_report(truth, predicted)
                metrics["spearman"] = spearman(truth, predicted)
                seconds = time.perf_counter() - start
                result = StudyResult(
                    method, size, seed, len(test_idx), metrics, seconds, config.largest
                )
                record_result(results, result, path, on_result)
    inputs = len(records)
    if not inputs and results:  # rebuilt from the file: every network of a draw
        inputs = results[0].test_size + results[0].largest + config.validation
    return Results(config, results, inputs)


def _published(method: str, size: int) -> str:
    """The published Acc(1/5/10 %) of ``method`` at ``size`` training networks, or "–"."""
    cells = [
        f"{f['acc_1']:g} / {f['acc_5']:g} / {f['acc_10']:g} ({f['where']})"
        for f in published_figures("brpnas_nb201")
        if (f["method"], f["train_size"]) == (method, size)
    ]
    return "; ".join(cells) or "–"


def render(study: Results[BrpnasStudyConfig, StudyResult]) -> str:
    """The reproduction table: ours (mean ± sd over seeds) beside the published figures."""
    results, config = study.rows, study.config
    lines = [
        "# BRP-NAS latency predictor on NAS-Bench-201, desktop CPU (LatBench)",
        "",
        f"Made by `{config.command}` on platform `{config.platform}`"
        f" ({study.inputs} {config.graphs}).",
        "Accuracy = share of test networks predicted within ±δ of the published latency,"
        " mean ± standard deviation over seeds; 100 validation networks on top of the"
        f" training ones; the test set of a seed is the networks left after the first"
        f" {results[0].largest + VALIDATION if results else '–'} of its draw.",
        "",
        "| method | train | seeds | test | Acc(1 %) | Acc(5 %) | Acc(10 %) | MAPE | Spearman"
        " | published Acc(1/5/10 %) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys = dict.fromkeys((r.method, r.train_size) for r in results)
    order = {m: i for i, m in enumerate(METHOD_ORDER)}
    for method, size in sorted(keys, key=lambda k: (k[1], order.get(k[0], 99))):
        group = [r for r in results if (r.method, r.train_size) == (method, size)]
        cells = [mean_sd([r.metrics[k] for r in group]) for k in ("acc_1", "acc_5", "acc_10")]
        cells.append(f"{statistics.mean(r.metrics['mape'] for r in group) * 100:.2f} %")
        cells.append(f"{statistics.mean(r.metrics['spearman'] for r in group):.3f}")
        lines.append(
            f"| {method} | {size} | {len(group)} | {group[0].test_size} | "
            + " | ".join(cells)
            + f" | {_published(method, size)} |"
        )
    return "\n".join(lines) + "\n"
