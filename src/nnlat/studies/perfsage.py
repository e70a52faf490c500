"""PerfSAGE on EdgeDLPerf-like design spaces (Chai et al. 2023, §5: Tables 4-6, Figures 3-4).

Protocol (the paper's §5.1, with model selection kept off the test set): in each design
space (a zoo family: ``cnn-kws``, ``cnn-cifar10``, ``vit-cifar100``, ``cnn-imagenet``)
the distinct graphs are split 80 : 20 with the study's seed; the 20 % are the test set,
the same for every method and mode, scored once per trained model. Each method carves
a validation share out of its 80 % for early stopping (``nnlat eval perfsage`` keeps the
epoch with the lowest median of the heads' validation MAPEs:
``TrainSettings.median_head_selection``), and nothing else chooses on the test set:
PerfSAGE's settings (α = 10, up-sampling to 10 %) are the paper's, fixed before any run
(its LayerNorm and log-error anchor, not the paper's, were fixed on training behaviour:
NaN and collapsed heads, see ``studies/methods.py``).

Every trained model learns every (platform, target) head present in its records
(latency, memory, energy where measured) on one graph embedding. Runs:

* *specialised*: one model per design space, trained on that space's 80 %;
* *generalised*: one model trained on every space's 80 %, scored on each space's test;

for ``perfsage`` (Table 6, upper and lower parts), ``gcn`` specialised (Eagle, the
BRP-NAS GCN, Table 6's lowest part), ``perfsage-wo-cfe`` specialised and generalised
(Table 4), ``perfsage-wo-dus`` generalised (Table 5), ``perfsage-mape`` specialised on
one space (Figure 3: error by target bin, MAPE loss against hybrid loss) and
``perfsage-alpha<α>`` generalised (Figure 4); ``perfsage-log`` specialised and
generalised (part ``loss``, not the paper's: PerfSAGE with NNLP's log-error loss) and
``nnlp`` (part ``nnlp``: nnlat's own network on the same split). Runs go
in that order (what matters most first); each appends its rows to a JSON-lines file as
soon as it ends, so a stopped study resumes and ``--report-only`` rebuilds the report.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.records import LatencyRecord
from nnlat.predictor.metrics import mape
from nnlat.predictor.training import TrainSettings
from nnlat.studies.markdown import header
from nnlat.studies.methods import METHODS, PERFSAGE_ALPHAS, MethodContext
from nnlat.studies.perfsage_kernels import METHOD as KERNEL
from nnlat.studies.perfsage_kernels import kernel_rows
from nnlat.studies.results import Results, read_jsonl, record_result

SPACES = ("cnn-cifar10", "cnn-imagenet", "cnn-kws", "vit-cifar100")
ALL = "all"
SPECIALISED, GENERALISED = "specialised", "generalised"
TARGET_ORDER = ("latency", "memory", "energy")

OnResult = Callable[["PerfsageResult"], None]


@dataclass(frozen=True)
class Run:
    """One model to train: a method, a mode and what it trains on.

    Attributes:
        method: a registered method.
        mode: :data:`SPECIALISED` or :data:`GENERALISED`.
        space: the design space trained on (:data:`ALL` when generalised).
        purpose: the table or figure it serves, for progress lines.
    """

    method: str
    mode: str
    space: str
    purpose: str


@dataclass(frozen=True)
class PerfsageConfig:
    """What to run.

    Attributes:
        spaces: the design spaces (families) to use, in table order.
        targets: the targets to learn and score.
        settings: the graph networks' training settings (seed, epochs, validation share).
        config: PerfSAGE hyper-parameters over its defaults (``hidden``...).
        test_fraction: share of each space's graphs held out for testing (the paper's 20 %).
        per_space: use at most this many graphs of each space (the first in store order,
            a uniform sample); None: all.
        space_caps: a cap of its own for some spaces, over ``per_space`` (a space of
            real architectures' blocks may need more graphs than the others).
        figure3_space: the space of Figure 3 (default: the one with the widest latency range).
        parts: which tables/figures to run (``table6``, ``table4``, ``table5``,
            ``figure3``, ``figure4``, ``table7``; and, not in the paper and not run unless
            asked, ``loss``: PerfSAGE with the log loss, ``nnlp``: nnlat's own network).
        alphas: the α values of Figure 4.
        results_path: JSON lines to resume from and append to.
        fit_missing: False only reads ``results_path``.
        command: the command that ran the study, for the report.
        plot_dir: where the report's figures are written (their names are fixed).
        save_generalised: where to save the generalised ``perfsage`` predictor when it
            trains (for predictions beyond the four spaces), and ``nnlp``'s beside it
            (:func:`generalised_folder`); None: not saved.
        methods: train only the runs of these methods (the others' rows are still read
            from ``results_path``), so that runs can be shared between processes; empty:
            all.
    """

    spaces: tuple[str, ...] = SPACES
    targets: tuple[str, ...] = TARGET_ORDER
    settings: TrainSettings = field(default_factory=TrainSettings)
    config: dict[str, object] = field(default_factory=dict)
    test_fraction: float = 0.2
    per_space: int | None = None
    space_caps: dict[str, int] = field(default_factory=dict)
    figure3_space: str | None = None
    parts: tuple[str, ...] = ("table6", "table4", "table5", "figure3", "figure4", "table7")
    alphas: tuple[float, ...] = PERFSAGE_ALPHAS
    results_path: Path | None = None
    fit_missing: bool = True
    command: str = ""
    plot_dir: Path | None = None
    save_generalised: Path | None = None
    methods: tuple[str, ...] = ()


@dataclass(frozen=True)
class PerfsageResult:
    """One trained model's test error on one (space, platform, target).

    Attributes:
        method, mode, trained_on: the run (``trained_on`` is a space or :data:`ALL`).
        space: the design space scored.
        platform, target: the head scored.
        seed: the split and training seed.
        train_graphs: graphs the model trained on (validation included).
        test_size: test records scored on this head.
        mape: the test MAPE (a fraction).
        valid_mape: the run's best validation MAPE (over all its heads; model selection).
        best_epoch: the epoch kept.
        fit_seconds: training time of the run.
        measured, predicted: the test values (for Figure 3), in the target's unit.
        unseen_kernels: test graphs with a kernel pattern the kernel predictor never saw
            (Table 7's nn-Meter rows only; None elsewhere).
        non_square: test graphs with a non-square window (Table 7's rows only).
    """

    method: str
    mode: str
    trained_on: str
    space: str
    platform: str
    target: str
    seed: int
    train_graphs: int
    test_size: int
    mape: float
    valid_mape: float | None
    best_epoch: int
    fit_seconds: float
    measured: list[float]
    predicted: list[float]
    unseen_kernels: int | None = None
    non_square: int | None = None


def split_space(
    records: Sequence[LatencyRecord], fraction: float, seed: int
) -> tuple[list[LatencyRecord], list[LatencyRecord]]:
    """(train pool, test) of one space's records, by graph, ``fraction`` of graphs to test.

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> pool, test = split_space(toy_records(), 0.25, seed=0)
        >>> len(pool), len(test), {r.graph_hash for r in pool} & {r.graph_hash for r in test}
        (9, 3, set())
    """
    graphs = sorted({r.graph_hash for r in records})
    order = np.random.default_rng(seed).permutation(len(graphs))
    held = {graphs[i] for i in order[: max(1, round(len(graphs) * fraction))]}
    return [r for r in records if r.graph_hash not in held], [
        r for r in records if r.graph_hash in held
    ]


def measured_memory(records: Sequence[LatencyRecord]) -> list[LatencyRecord]:
    """``records`` with a memory of zero or less taken as not measured.

    A CPU's peak memory is the growth of the resident set during the run; when the run
    reuses pages it already holds the growth is 0 (LiteRT: 71 % of the ``cnn-kws``
    models), which has no relative error and no logarithm to learn.

    Example:
        >>> import dataclasses
        >>> from nnlat.testing.records import toy_records
        >>> r = dataclasses.replace(toy_records()[0], memory_bytes=0.0)
        >>> measured_memory([r])[0].target("memory") is None
        True
    """
    return [
        dataclasses.replace(r, memory_bytes=None)
        if r.memory_bytes is not None and r.memory_bytes <= 0
        else r
        for r in records
    ]


def cap_per_space(
    records: Sequence[LatencyRecord], cap: int | None, caps: Mapping[str, int] | None = None
) -> list[LatencyRecord]:
    """The records of at most ``cap`` graphs per family (the first graphs seen), or of
    ``caps[family]`` graphs for the families it names.

    Example:
        >>> from nnlat.features.records import LatencyRecord
        >>> rows = [LatencyRecord(f"g{i}", f, "p", 1, 1.0, None) for f in "ab" for i in range(3)]
        >>> [(r.family, r.graph_hash) for r in cap_per_space(rows, 1, {"b": 2})]
        [('a', 'g0'), ('b', 'g0'), ('b', 'g1')]
    """
    caps = caps or {}
    if cap is None and not caps:
        return list(records)
    kept: dict[str, set[str]] = {}
    out = []
    for r in records:
        graphs = kept.setdefault(r.family, set())
        limit = caps.get(r.family, cap)
        if r.graph_hash in graphs or limit is None or len(graphs) < limit:
            graphs.add(r.graph_hash)
            out.append(r)
    return out


def widest_space(records: Sequence[LatencyRecord]) -> str:
    """The family whose latencies span the largest ratio (Figure 3's space)."""
    spans = {}
    for family in {r.family for r in records}:
        values = [r.latency_ms for r in records if r.family == family]
        spans[family] = max(values) / min(values)
    return max(sorted(spans), key=spans.__getitem__)


def generalised_folder(base: Path, method: str) -> Path | None:
    """Where a method's generalised predictor is saved: ``base`` for ``perfsage``,
    ``<base>-nnlp`` for ``nnlp``; other methods' are not kept.

    Example:
        >>> generalised_folder(Path("g500"), "nnlp")
        PosixPath('g500-nnlp')
        >>> generalised_folder(Path("g500"), "perfsage-log") is None
        True
    """
    if method == "perfsage":
        return base
    if method == "nnlp":
        return base.with_name(f"{base.name}-nnlp")
    return None


def plan(config: PerfsageConfig, spaces: Sequence[str], figure3: str) -> list[Run]:
    """The runs of ``config.parts`` over ``spaces``, most important first, no duplicates.

    Example:
        >>> runs = plan(PerfsageConfig(parts=("table6",)), ["cnn-kws"], "cnn-kws")
        >>> [(r.method, r.mode, r.space) for r in runs]  # doctest: +NORMALIZE_WHITESPACE
        [('perfsage', 'specialised', 'cnn-kws'), ('perfsage', 'generalised', 'all'),
         ('gcn', 'specialised', 'cnn-kws')]
    """
    runs: list[Run] = []

    def add(method: str, mode: str, purpose: str, only: str | None = None) -> None:
        for space in [ALL] if mode == GENERALISED else [only] if only else spaces:
            run = Run(method, mode, space, purpose)
            if all((r.method, r.mode, r.space) != (method, mode, space) for r in runs):
                runs.append(run)

    parts = set(config.parts)
    if "table6" in parts:
        add("perfsage", SPECIALISED, "Table 6")
        add("perfsage", GENERALISED, "Table 6")
        add("gcn", SPECIALISED, "Table 6 (Eagle)")
    if "table4" in parts:
        add("perfsage", SPECIALISED, "Table 4")
        add("perfsage-wo-cfe", SPECIALISED, "Table 4")
        add("perfsage", GENERALISED, "Table 4")
        add("perfsage-wo-cfe", GENERALISED, "Table 4")
    if "table5" in parts:
        add("perfsage", GENERALISED, "Table 5")
        add("perfsage-wo-dus", GENERALISED, "Table 5")
    if "figure3" in parts:
        add("perfsage", SPECIALISED, "Figure 3", figure3)
        add("perfsage-mape", SPECIALISED, "Figure 3", figure3)
    if "figure4" in parts:
        for alpha in config.alphas:  # the default α is plain perfsage
            add("perfsage" if alpha == 10 else f"perfsage-alpha{alpha:g}", GENERALISED, "Figure 4")
    if "loss" in parts:
        add("perfsage-log", SPECIALISED, "Loss")
        add("perfsage-log", GENERALISED, "Loss")
    if "nnlp" in parts:
        add("nnlp", SPECIALISED, "nnlat's network")
        add("nnlp", GENERALISED, "nnlat's network")
    return runs


def read_results(path: Path) -> list[PerfsageResult]:
    """The rows a previous run wrote (none if the file does not exist)."""
    return read_jsonl(path, PerfsageResult)


def _score(
    run: Run,
    model: object,
    test: dict[str, list[LatencyRecord]],
    targets: Sequence[str],
    seed: int,
    train_graphs: int,
    seconds: float,
) -> list[PerfsageResult]:
    """One row per (space, platform, target) the model has a head for and the test has."""
    predictor = model.predictor_  # type: ignore[attr-defined]
    result = model.train_result_  # type: ignore[attr-defined]
    rows = []
    for space, records in test.items():
        if run.space not in (ALL, space):
            continue
        for platform, target in predictor.heads:
            if target not in targets:
                continue
            scored = [r for r in records if r.platform == platform and r.target(target) is not None]
            if not scored:
                continue
            measured = [float(r.target(target)) for r in scored]  # type: ignore[arg-type]
            predicted = predictor.predict_records(scored, target).tolist()
            rows.append(
                PerfsageResult(
                    run.method,
                    run.mode,
                    run.space,
                    space,
                    platform,
                    target,
                    seed,
                    train_graphs,
                    len(scored),
                    mape(measured, predicted),
                    result.best_valid_mape,
                    result.best_epoch,
                    seconds,
                    measured,
                    predicted,
                )
            )
    return rows


def run(
    config: PerfsageConfig,
    records: Sequence[LatencyRecord],
    *,
    on_result: OnResult | None = None,
    on_run: Callable[[Run, int, int], None] | None = None,
) -> Results[PerfsageConfig, PerfsageResult]:
    """Train every run not yet in ``results_path``; return every row.

    Args:
        config: what to run.
        records: the design spaces' records (any platforms; other families ignored).
        on_result: called after each new row.
        on_run: called before each run with (run, index, total).

    Raises:
        NnlatError: a space without records, or too few graphs to split.
        UnknownNameError: an unknown method.
    """
    path = config.results_path
    results = read_results(path) if path is not None else []
    seed = config.settings.seed
    chosen = cap_per_space(
        measured_memory([r for r in records if r.family in config.spaces]),
        config.per_space,
        config.space_caps,
    )
    spaces = [s for s in config.spaces if any(r.family == s for r in chosen)]
    if config.fit_missing and not spaces:
        raise NnlatError(f"no records of {', '.join(config.spaces)}: measure some first")
    pools, tests = {}, {}
    for space in spaces:
        pools[space], tests[space] = split_space(
            [r for r in chosen if r.family == space], config.test_fraction, seed
        )
    figure3 = config.figure3_space or (widest_space(chosen) if chosen else "")
    runs = plan(config, spaces, figure3) if config.fit_missing else []
    runs = [r for r in runs if not config.methods or r.method in config.methods]
    for job in runs:
        METHODS.get(job.method)  # an unknown method (or α) fails before any training
    done = {(r.method, r.mode, r.trained_on, r.seed) for r in results}
    context = MethodContext(
        settings=config.settings, config=config.config, targets=tuple(config.targets)
    )
    # Table 7's kernel forests first: minutes, where the networks take hours.
    if config.fit_missing and "table7" in config.parts:
        fitted = {(r.mode, r.trained_on, r.platform) for r in results if r.method == KERNEL}
        for fields in kernel_rows(pools, tests, seed, fitted):
            record_result(results, PerfsageResult(**fields), path, on_result)  # type: ignore[arg-type]
    for index, job in enumerate(runs):
        if (job.method, job.mode, job.space, seed) in done:
            continue
        if on_run is not None:
            on_run(job, index, len(runs))
        train = [r for s in spaces if job.space in (ALL, s) for r in pools[s]]
        start = time.perf_counter()
        model = METHODS.get(job.method).build(context).fit(train)
        seconds = time.perf_counter() - start
        if config.save_generalised is not None and job.mode == GENERALISED:
            saved_at = generalised_folder(config.save_generalised, job.method)
            if saved_at is not None:
                model.predictor_.save(saved_at)  # type: ignore[attr-defined]
        graphs = len({r.graph_hash for r in train})
        for row in _score(job, model, tests, config.targets, seed, graphs, seconds):
            record_result(results, row, path, on_result)
    return Results(config, results, len(chosen))


# -- the report --------------------------------------------------------------------------


def _short(platform: str) -> str:
    """A column's platform label: ``NPU (u55_128…)`` or ``CPU (xeon-litert…)``."""
    kind = "NPU" if "vela" in platform else "CPU"
    return f"{kind} `{platform}`"


def _columns(rows: Sequence[PerfsageResult]) -> list[tuple[str, str]]:
    """(target, platform) columns in the paper's order: CPU before NPU, latency first."""
    keys = {(r.target, r.platform) for r in rows}
    return sorted(keys, key=lambda k: ("vela" in k[1], k[1], TARGET_ORDER.index(k[0])))


def _mape(rows: Sequence[PerfsageResult], **match: str) -> float | None:
    """The mean MAPE (over seeds) of the rows matching every ``field=value``."""
    chosen = [r.mape for r in rows if all(getattr(r, k) == v for k, v in match.items())]
    return statistics.mean(chosen) if chosen else None


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.2f} %"


def _table(
    rows: Sequence[PerfsageResult],
    spaces: Sequence[str],
    columns: Sequence[tuple[str, str]],
    sections: Sequence[tuple[str, str, str]],
) -> list[str]:
    """A Table-6-shaped table: one section per (title, method, mode), a row per space."""
    head = " | ".join(f"{t} {_short(p)}" for t, p in columns)
    lines = [f"| | {head} |", "|---" * (len(columns) + 1) + "|"]
    for title, method, mode in sections:
        lines.append(f"| **{title}** |" + " |" * len(columns))
        for space in spaces:
            cells = [
                _cell(_mape(rows, method=method, mode=mode, space=space, target=t, platform=p))
                for t, p in columns
            ]
            lines.append(f"| *{space}* | " + " | ".join(cells) + " |")
    return lines


def _latency_column(rows: Sequence[PerfsageResult]) -> tuple[str, str] | None:
    """The ablations' column: CPU latency (the paper's) if measured, else NPU latency."""
    latency = [c for c in _columns(rows) if c[0] == "latency"]
    return latency[0] if latency else None


def _ablation(
    rows: Sequence[PerfsageResult],
    spaces: Sequence[str],
    column: tuple[str, str],
    lines_of: Sequence[tuple[str, str, str]],
) -> list[str]:
    """A Table-4/5-shaped table: spaces as columns, one line per (label, method, mode)."""
    target, platform = column
    lines = ["| | " + " | ".join(f"*{s}*" for s in spaces) + " |", "|---" * (len(spaces) + 1) + "|"]
    for label, method, mode in lines_of:
        cells = [
            _cell(_mape(rows, method=method, mode=mode, space=s, target=target, platform=platform))
            for s in spaces
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _counts(rows: Sequence[PerfsageResult], spaces: Sequence[str]) -> list[str]:
    """Graphs per space: trained on (specialised perfsage) and tested."""
    lines = ["| space | training graphs (incl. validation) | test graphs |", "|---|---|---|"]
    for space in spaces:
        train = [r.train_graphs for r in rows if r.mode == SPECIALISED and r.space == space]
        test = [r.test_size for r in rows if r.space == space and r.target == "latency"]
        # Only generalised runs: no per-space training count is recorded (a dash, not 0).
        trained = max(train) if train else "–"
        lines.append(f"| {space} | {trained} | {max(test, default=0)} |")
    return lines


def render(study: Results[PerfsageConfig, PerfsageResult]) -> str:
    """The report: counts, Table 6, Tables 4-5, Figures 3-4 (linked) and how they were made."""
    config, rows = study.config, study.rows
    spaces = [s for s in config.spaces if any(r.space == s for r in rows)]
    columns = _columns(rows)
    settings = config.settings
    lines = header("PerfSAGE on EdgeDLPerf-like design spaces", config.command)
    lines += [
        "Test MAPE (lower is better) of models trained on each space's 80 % (a validation"
        f" share of {settings.valid_fraction:.0%} of it for early stopping"
        + (", by the median of the heads' MAPEs" if settings.median_head_selection else "")
        + ") and scored once"
        " on its 20 % test graphs; seed"
        f" {settings.seed}, at most {settings.epochs} epochs, network overrides"
        f" {dict(config.config) or 'none'}. Graphs per space:",
        "",
        *_counts(rows, spaces),
        "",
        "## Table 6: MAPE per design space × target",
        "",
        *_table(
            rows,
            spaces,
            columns,
            [
                ("PerfSAGE (specialised)", "perfsage", SPECIALISED),
                ("PerfSAGE (generalised)", "perfsage", GENERALISED),
                ("Eagle = BRP-NAS GCN (specialised)", "gcn", SPECIALISED),
            ],
        ),
        "",
    ]
    column = _latency_column(rows)
    if column is not None:
        label = f"{column[0]} {_short(column[1])}"
        lines += [
            f"## Table 4: categorical feature encoding (CFE), {label}",
            "",
            *_ablation(
                rows,
                spaces,
                column,
                [
                    ("specialised, w/o CFE", "perfsage-wo-cfe", SPECIALISED),
                    ("specialised, with CFE", "perfsage", SPECIALISED),
                    ("generalised, w/o CFE", "perfsage-wo-cfe", GENERALISED),
                    ("generalised, with CFE", "perfsage", GENERALISED),
                ],
            ),
            "",
            f"## Table 5: dataset up-sampling (DUS), generalised, {label}",
            "",
            *_ablation(
                rows,
                spaces,
                column,
                [
                    ("w/o DUS", "perfsage-wo-dus", GENERALISED),
                    ("w/ DUS", "perfsage", GENERALISED),
                ],
            ),
            "",
            *_figure3_text(rows, column),
            *_figure4_text(rows, spaces, column, config.alphas),
        ]
    lines += _table7_text(rows, spaces)
    lines += _beyond_paper_text(rows, spaces, columns)
    return "\n".join(lines) + "\n"


def _beyond_paper_text(
    rows: Sequence[PerfsageResult], spaces: Sequence[str], columns: Sequence[tuple[str, str]]
) -> list[str]:
    """Table 6's PerfSAGE rows against the same network trained with the log loss and
    against nnlat's NNLP, where they ran, with the validation score each run kept its
    epoch by (what a choice between them may read)."""
    variants = [
        (label, method)
        for label, method in (
            ("PerfSAGE, hybrid loss", "perfsage"),
            ("PerfSAGE, log loss", "perfsage-log"),
            ("NNLP (nnlat's network, log loss)", "nnlp"),
        )
        if any(r.method == method for r in rows)
    ]
    if all(method == "perfsage" for _, method in variants):
        return []
    sections = [
        (f"{label} ({mode})", method, mode)
        for mode in (SPECIALISED, GENERALISED)
        for label, method in variants
    ]
    valid = [
        f"| {title} | {_cell(_median_valid(rows, method, mode))} |"
        for title, method, mode in sections
    ]
    return [
        "## Beyond the paper: the log loss and nnlat's network",
        "",
        "The same split, epochs and selection rule. `perfsage-log` is PerfSAGE trained on the",
        "squared error of log values (NNLP's loss) instead of MAPE + α·RMSE; `nnlp` is",
        "nnlat's own graph network (mean readout, static features, the log loss). Test MAPE:",
        "",
        *_table(rows, spaces, columns, sections),
        "",
        "Validation score of the kept epoch (median over the runs' heads and spaces), the",
        "only figure a choice between them may read:",
        "",
        "| run | validation |",
        "|---|---|",
        *valid,
        "",
    ]


def _median_valid(rows: Sequence[PerfsageResult], method: str, mode: str) -> float | None:
    """The median validation score of a method's runs in one mode (None: none recorded)."""
    scores = [r.valid_mape for r in rows if (r.method, r.mode) == (method, mode)]
    known = [v for v in scores if v is not None]
    return statistics.median(known) if known else None


def _table7_text(rows: Sequence[PerfsageResult], spaces: Sequence[str]) -> list[str]:
    """Table 7: the kernel predictor against PerfSAGE on latency, per platform, and counts
    of the test graphs it cannot handle as nn-Meter would."""
    kernel = [r for r in rows if r.method == KERNEL]
    if not kernel:
        return []
    lines = [
        "## Table 7: nn-Meter-style kernel predictor vs PerfSAGE, latency",
        "",
        "The kernel predictor has no memory cell: a sum of kernel latencies is not a peak"
        " memory or an SRAM size (see `studies/perfsage_kernels.py`).",
        "",
    ]
    for platform in sorted({r.platform for r in kernel}, key=lambda p: ("vela" in p, p)):
        column = ("latency", platform)
        lines += [
            f"### latency {_short(platform)}",
            "",
            *_ablation(
                rows,
                spaces,
                column,
                [
                    ("nn-Meter-style (specialised)", KERNEL, SPECIALISED),
                    ("nn-Meter-style (generalised)", KERNEL, GENERALISED),
                    ("PerfSAGE (specialised)", "perfsage", SPECIALISED),
                    ("PerfSAGE (generalised)", "perfsage", GENERALISED),
                ],
            ),
            "",
        ]
    lines += [
        "Test graphs the kernel predictor handles only through its catch-all forest (a fused"
        " kernel pattern without a forest of its own: nn-Meter proper has no predictor for"
        " it), and test graphs with a non-square window (nn-Meter describes a kernel by one"
        " size), per space:",
        "",
        "| space | test graphs | unseen kernel pattern (specialised) |"
        " unseen kernel pattern (generalised) | non-square window |",
        "|---|---|---|---|---|",
    ]

    def most(chosen: list[PerfsageResult]) -> str:
        return str(max(r.unseen_kernels or 0 for r in chosen)) if chosen else "–"

    for space in spaces:
        here = [r for r in kernel if r.space == space]
        if not here:
            continue
        spec = most([r for r in here if r.mode == SPECIALISED])
        gen = most([r for r in here if r.mode == GENERALISED])
        graphs = max(r.test_size for r in here)
        lines.append(f"| {space} | {graphs} | {spec} | {gen} | {here[0].non_square} |")
    return [*lines, ""]


FIGURE3 = "figure3.png"
FIGURE4 = "figure4.png"


def _figure3_rows(
    rows: Sequence[PerfsageResult], column: tuple[str, str]
) -> tuple[PerfsageResult, PerfsageResult] | None:
    """(MAPE loss, hybrid loss) rows of Figure 3's space, if both ran."""
    target, platform = column
    mape_rows = [
        r for r in rows if (r.method, r.mode, r.target, r.platform) ==
        ("perfsage-mape", SPECIALISED, target, platform)
    ]  # fmt: skip
    for plain in mape_rows:
        for hybrid in rows:
            if (hybrid.method, hybrid.mode, hybrid.space, hybrid.target, hybrid.platform) == (
                "perfsage", SPECIALISED, plain.space, target, platform
            ):  # fmt: skip
                return plain, hybrid
    return None


def bin_errors(
    measured: Sequence[float], predicted: Sequence[float], bins: int = 8
) -> list[tuple[float, float, int, float]]:
    """(low, high, count, MAPE) of equal-width bins of the measured values.

    Example:
        >>> bin_errors([1.0, 2.0, 3.0, 4.0], [1.1, 2.0, 3.0, 4.4], bins=2)
        [(1.0, 2.5, 2, 0.05), (2.5, 4.0, 2, 0.05)]
    """
    y = np.asarray(measured)
    p = np.asarray(predicted)
    edges = np.linspace(y.min(), y.max(), bins + 1)
    which = np.clip(np.searchsorted(edges, y, side="right") - 1, 0, bins - 1)
    out = []
    for b in range(bins):
        inside = which == b
        error = (
            float(np.mean(np.abs(p[inside] - y[inside]) / y[inside])) if inside.any() else math.nan
        )
        out.append((float(edges[b]), float(edges[b + 1]), int(inside.sum()), round(error, 6)))
    return out


def _figure3_text(rows: Sequence[PerfsageResult], column: tuple[str, str]) -> list[str]:
    pair = _figure3_rows(rows, column)
    if pair is None:
        return []
    plain, hybrid = pair
    unit = "ms" if column[0] == "latency" else column[0]
    lines = [
        f"## Figure 3: error by {column[0]} bin, {plain.space}, specialised",
        "",
        f"![Figure 3]({FIGURE3})",
        "",
        f"Test MAPE by bin of the measured value ({unit}); MAPE loss alone"
        f" {plain.mape * 100:.2f} %, hybrid loss (α = 10) {hybrid.mape * 100:.2f} %.",
        "",
        "| bin | graphs | MAPE loss | hybrid loss |",
        "|---|---|---|---|",
    ]
    for (low, high, n, a), (_, _, _, b) in zip(
        bin_errors(plain.measured, plain.predicted),
        bin_errors(hybrid.measured, hybrid.predicted),
        strict=True,
    ):
        cells = [_cell(e if n else None) for e in (a, b)]
        lines.append(f"| {low:.3g}-{high:.3g} | {n} | {cells[0]} | {cells[1]} |")
    return [*lines, ""]


def _alpha_of(method: str) -> float | None:
    if method == "perfsage":
        return 10.0
    if method.startswith("perfsage-alpha"):
        return float(method.removeprefix("perfsage-alpha"))
    return None


def _figure4_points(
    rows: Sequence[PerfsageResult], column: tuple[str, str]
) -> dict[str, dict[float, float]]:
    """Space → α → generalised test MAPE on ``column``."""
    target, platform = column
    points: dict[str, dict[float, float]] = {}
    for r in rows:
        alpha = _alpha_of(r.method)
        if alpha is None or r.mode != GENERALISED or (r.target, r.platform) != (target, platform):
            continue
        points.setdefault(r.space, {})[alpha] = r.mape
    return points


def _figure4_text(
    rows: Sequence[PerfsageResult],
    spaces: Sequence[str],
    column: tuple[str, str],
    alphas: Sequence[float],
) -> list[str]:
    points = _figure4_points(rows, column)
    ran = sorted({a for p in points.values() for a in p})
    if len(ran) < 2:
        return []
    valid = {
        _alpha_of(r.method): r.valid_mape
        for r in rows
        if r.mode == GENERALISED and _alpha_of(r.method) is not None
    }
    lines = [
        f"## Figure 4: the hybrid loss's weight α, generalised, {column[0]} {_short(column[1])}",
        "",
        f"![Figure 4]({FIGURE4})",
        "",
        "| α | " + " | ".join(f"*{s}*" for s in spaces) + " | validation score (epoch selection) |",
        "|---" * (len(spaces) + 2) + "|",
    ]
    for alpha in ran:
        cells = [_cell(points.get(s, {}).get(alpha)) for s in spaces]
        lines.append(f"| {alpha:g} | " + " | ".join(cells) + f" | {_cell(valid.get(alpha))} |")
    return [
        *lines,
        "",
        "α = 10 is the paper's choice, fixed before these runs; α = 0 is MAPE alone.",
        "",
    ]


def plot(study: Results[PerfsageConfig, PerfsageResult], directory: Path) -> list[Path]:
    """Figures 3 and 4 as PNGs in ``directory`` (those whose runs exist); their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = study.rows
    column = _latency_column(rows)
    written: list[Path] = []
    if column is None:
        return written
    pair = _figure3_rows(rows, column)
    if pair is not None:
        fig, axes = plt.subplots(3, 2, figsize=(9, 8), sharex=True)
        for col, (title, row) in enumerate(
            (("MAPE loss", pair[0]), ("hybrid loss (α = 10)", pair[1]))
        ):
            y = np.asarray(row.measured)
            error = np.abs(np.asarray(row.predicted) - y) / y * 100
            bins = bin_errors(row.measured, row.predicted)
            centres = [(low + high) / 2 for low, high, _, _ in bins]
            width = (bins[0][1] - bins[0][0]) * 0.8
            axes[0, col].hist(y, bins=[b[0] for b in bins] + [bins[-1][1]])
            axes[0, col].set_title(f"{title}: {row.space}")
            groups = [error[(y >= low) & (y <= high)] for low, high, _, _ in bins]
            axes[1, col].boxplot(
                [g if len(g) else [math.nan] for g in groups], positions=centres, widths=width,
                showfliers=False, manage_ticks=False,
            )  # fmt: skip
            axes[2, col].bar(
                centres, [0 if math.isnan(b[3]) else b[3] * 100 for b in bins], width=width
            )
        axes[0, 0].set_ylabel("graphs")
        axes[1, 0].set_ylabel("APE %")
        axes[2, 0].set_ylabel("MAPE %")
        for ax in axes[2]:
            ax.set_xlabel(f"measured {column[0]}")
        fig.tight_layout()
        fig.savefig(directory / FIGURE3, dpi=100)
        plt.close(fig)
        written.append(directory / FIGURE3)
    points = _figure4_points(rows, column)
    if len({a for p in points.values() for a in p}) >= 2:
        fig, ax = plt.subplots(figsize=(6, 4))
        for space, by_alpha in sorted(points.items()):
            alphas = sorted(by_alpha)
            # α = 0 on a log axis: drawn at a tenth of the smallest positive α
            xs = [a if a > 0 else min([x for x in alphas if x > 0], default=1) / 10 for a in alphas]
            ax.plot(xs, [by_alpha[a] * 100 for a in alphas], marker="o", label=space)
        ax.set_xscale("log")
        ax.set_xlabel("α (α = 0 drawn at the left end)")
        ax.set_ylabel("test MAPE %")
        ax.legend()
        fig.tight_layout()
        fig.savefig(directory / FIGURE4, dpi=100)
        plt.close(fig)
        written.append(directory / FIGURE4)
    return written
