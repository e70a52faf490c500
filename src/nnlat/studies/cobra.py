"""COBRA (latency from source code): Tables 1 and 2 and Figures 3 and 5 of the paper.

On the campaigns of :mod:`nnlat.datasets.cobra` (``data/cobra/``):

1. the networks are interpreted from their source files (:mod:`nnlat.code`); only those
   whose every snippet was also timed alone (the per-layer pass) are kept, so every
   method sees the same networks; they are split once (``split_seed``) into training,
   validation and test networks in the paper's proportions (1350 / 150 / 500);
2. the layers are split into training, validation and test layers;
3. a WordPiece tokenizer is trained on the training snippets (layers and networks);
4. the snippet encoder is pre-trained twice on the training layers, with and without
   the appended latency (Figure 5: perplexity on parameter tokens); the first is COBRA's,
   frozen; its latency head on the test layers gives Table 2;
5. per seed, COBRA's GCN (``cobra``: nnlat's sum readout; ``cobra-mean``: the paper's
   mean readout, see :mod:`nnlat.predictor.networks.cobra`), BRP-NAS and BRP-NAS++
   (:mod:`cobra_baselines`) and NNLP on the exported ONNX graphs are trained on the
   training networks, selected on the validation networks, and evaluated once on the
   test networks (Table 1, Figure 3); the calibrated layer-wise sum needs no seed.

Results are kept in ``results_dir`` (``networks.jsonl``: one line per method and seed;
``tokenizer.json``, ``encoders.json`` and the encoders' weights) as each is made; a
rerun skips what is there (Table 2 is recomputed from the saved encoder). The COBRA model
of the first seed is saved in ``results_dir/model`` (what :func:`nnlat.predict_code` can
load).

The work is split into tasks (:mod:`cobra_tasks`): with ``workers`` above 1 they run in
parallel processes, each (method, seed) as soon as what it needs exists, and every
training on the GPU when there is one; ``time_limit_s`` stops them in time to report
what finished.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from nnlat.code.graph import CodeGraph
from nnlat.datasets.cobra import append_records, read_records
from nnlat.predictor.code.encoder import EncoderConfig
from nnlat.predictor.code.model import CobraModel
from nnlat.predictor.code.pretraining import PretrainSettings, predict_log_ms
from nnlat.predictor.code.tokenizer import encode, latency_text, load_tokenizer, train_tokenizer
from nnlat.predictor.metrics import acc_within, mape
from nnlat.predictor.training import TrainSettings
from nnlat.studies import cobra_tasks
from nnlat.studies.markdown import mean_sd
from nnlat.studies.results import read_jsonl, record_result

METHODS = ("layerwise", "brpnas", "brpnas++", "nnlp", "cobra-mean", "cobra")
TITLES = {
    "layerwise": "Layer-wise sum (calibrated)",
    "brpnas": "BRP-NAS (type + parameters)",
    "brpnas++": "BRP-NAS++ (+ measured layer latency)",
    "nnlp": "NNLP on the exported ONNX graph",
    "cobra-mean": "COBRA, the paper's mean readout",
    "cobra": "COBRA (sum readout, nnlat's default)",
}
PUBLISHED = {  # the paper's Table 1: MAPE, ±1, ±5, ±10, ±25 %
    "layerwise": (8.07, 15.2, 51.8, 78.0, 95.0),
    "brpnas": (3.58, 26.1, 81.9, 93.4, 99.6),
    "brpnas++": (2.25, 37.2, 92.7, 98.3, 99.5),
    "cobra-mean": (1.65, 45.3, 96.2, 99.0, 99.8),
    "cobra": (1.65, 45.3, 96.2, 99.0, 99.8),
}
BOUNDS = (0.01, 0.05, 0.10, 0.25)


@dataclass(frozen=True)
class CobraStudyConfig:
    """What to run.

    Attributes:
        data_dir: the folder of ``layers``, ``networks`` and ``snippets`` ``.jsonl.gz``.
        results_dir: where results, encoders and the COBRA model are kept.
        seeds: the GCNs' training seeds (the paper's 10 initialisations).
        methods: which of :data:`METHODS` to run.
        split_seed: the one split of networks and layers.
        test_share, valid_share: of the networks (the paper's 500 and 150 of 2,000).
        layer_test_share, layer_valid_share: of the layers.
        max_layers: use only the file's first this many layers (None: all), so that a
            study stays reproducible while the layer campaign keeps appending.
        max_networks: use only the file's first this many networks (None: all): a quick
            check of the whole pipeline.
        pretrain: the encoder's pre-training.
        encoder: the encoder's shape.
        gcn: the graph networks' training (COBRA, BRP-NAS, BRP-NAS++, NNLP).
        vocab_size: the tokenizer's vocabulary.
        command: the command that ran the study, for the report.
        scale_note: what the report says about the data's scale.
        workers: processes for the tasks (:mod:`cobra_tasks`); 1 runs them in turn here.
        encoders: which encoders to pre-train: ``with-latency`` (COBRA's) and
            ``without-latency`` (only Figure 5's comparison needs it).
        time_limit_s: start no task after this many seconds and stop those running in
            worker processes (lost; a task run here is not stopped); what finished is
            kept and reported (None: no limit).
    """

    data_dir: Path
    results_dir: Path
    seeds: tuple[int, ...] = (0, 1, 2)
    methods: tuple[str, ...] = METHODS
    split_seed: int = 0
    test_share: float = 0.25
    valid_share: float = 0.075
    layer_test_share: float = 0.1
    layer_valid_share: float = 0.1
    max_layers: int | None = None
    max_networks: int | None = None
    pretrain: PretrainSettings = field(default_factory=PretrainSettings)
    encoder: EncoderConfig = field(default_factory=lambda: EncoderConfig(vocab_size=0))
    gcn: TrainSettings = field(
        default_factory=lambda: TrainSettings(
            epochs=300, batch_size=8, lr=1e-3, loss="mape", patience=60, device="auto"
        )
    )
    vocab_size: int = 2048
    command: str = ""
    scale_note: str = ""
    workers: int = 1
    time_limit_s: float | None = None
    encoders: tuple[str, ...] = ("with-latency", "without-latency")


@dataclass(frozen=True)
class NetworkResult:
    """One method, one seed, on the test networks (latencies in ms)."""

    method: str
    seed: int
    metrics: dict[str, float]
    measured: list[float]
    predicted: list[float]
    fit_seconds: float


@dataclass(frozen=True)
class CobraResults:
    """Everything the report shows."""

    config: CobraStudyConfig
    networks: list[NetworkResult]
    layers: dict[str, Any]
    encoders: dict[str, Any]
    data: dict[str, Any]


def metrics(measured: Sequence[float], predicted: Sequence[float]) -> dict[str, float]:
    """Table 1's columns: MAPE, RMSE (ms), share within ±1/5/10/25 % (fractions).

    Example:
        >>> metrics([10.0, 20.0], [11.0, 20.0])["acc_25"], metrics([10.0], [11.0])["rmse_ms"]
        (1.0, 1.0)
    """
    y, p = np.asarray(measured, dtype=float), np.asarray(predicted, dtype=float)
    out = {"mape": mape(y, p), "rmse_ms": float(np.sqrt(np.mean((p - y) ** 2)))}
    out |= {f"acc_{round(b * 100)}": acc_within(y, p, b) for b in BOUNDS}
    return out


def _split(n: int, seed: int, test: float, valid: float) -> tuple[list[int], list[int], list[int]]:
    order = np.random.default_rng(seed).permutation(n).tolist()
    n_test, n_valid = max(1, round(n * test)), max(1, round(n * valid))
    return order[n_test + n_valid :], order[n_test : n_test + n_valid], order[:n_test]


def network_split(
    n: int, config: CobraStudyConfig | None = None
) -> tuple[list[int], list[int], list[int]]:
    """The study's (training, validation, test) indices of ``n`` networks (``config``'s
    split, or the default study's).

    Example:
        >>> [len(part) for part in network_split(2000)]
        [1350, 150, 500]
    """
    c = config or CobraStudyConfig
    return _split(n, c.split_seed, c.test_share, c.valid_share)


def _load(config: CobraStudyConfig, workers: Any, onnx: bool) -> dict[str, Any]:
    """Interpreted networks (those fully timed layer by layer), layers, snippet latencies.

    Each network's source is interpreted (a third of a second each on one core) by the
    pool of ``workers``. With ``onnx``, the networks' ONNX features for NNLP (a second
    each) are left exporting there, on half of the workers, so that the other half are
    free for the other tasks (``data["onnx"]``: the pending chunks, and which networks
    were kept).
    """
    from nnlat.studies.cobra_baselines import covered

    layers = read_records(config.data_dir / "layers.jsonl.gz")[: config.max_layers]
    layers = [r for r in layers if r["status"] == "ok"]
    snippets = {
        r["key"]: r["latency_ms"]
        for r in read_records(config.data_dir / "snippets.jsonl.gz")
        if r["status"] == "ok"
    }
    records = _measured_networks(config)
    exports = []
    if onnx:
        parts = cobra_tasks.chunks(records, max(1, config.workers // 2))
        cache = config.results_dir / "onnx-features"
        exports = [workers.apply_async(cobra_tasks.onnx_features, (p, cache)) for p in parts]
    networks, graphs, kept = [], [], []
    for index, (record, graph) in enumerate(
        zip(
            records,
            interpreted_graphs(config.results_dir, records, workers, 4 * config.workers),
            strict=True,
        )
    ):
        if covered(graph, snippets):
            networks.append(record)
            graphs.append(graph)
            kept.append(index)
    if len(networks) < 0.9 * len(records):
        # The snippet texts name every constructor parameter of the installed torch, so a
        # torch with other signatures renders texts the per-layer pass never timed.
        timed_with = read_records(config.data_dir / "snippets.jsonl.gz")[0]["environment"]
        raise ValueError(
            f"only {len(networks)} of {len(records)} networks have every snippet timed alone: "
            f"this torch ({torch.__version__}) renders snippets differently from the one that "
            f"timed them ({timed_with.get('torch')}); interpret them there "
            "(scripts/cobra_study.py --interpret-only) and carry runs/graphs.jsonl.gz"
        )
    return {
        "layers": layers,
        "snippets": snippets,
        "networks": networks,
        "graphs": graphs,
        "skipped": len(records) - len(networks),
        "onnx": (exports, kept),
    }


def interpret_networks(config: CobraStudyConfig) -> int:
    """Interpret the networks into ``results_dir/graphs.jsonl.gz`` (what it lacks) and stop.

    For a study on a machine whose torch renders snippets differently from the one that
    timed them: interpret here, carry the file there. Returns how many graphs it holds.
    """
    records = _measured_networks(config)
    workers = cobra_tasks.pool(config.workers)
    try:
        config.results_dir.mkdir(parents=True, exist_ok=True)
        return len(interpreted_graphs(config.results_dir, records, workers, 4 * config.workers))
    finally:
        workers.terminate()


def _measured_networks(config: CobraStudyConfig) -> list[dict[str, Any]]:
    """The network records the study uses: the file's first ``max_networks``, those ok."""
    records = read_records(config.data_dir / "networks.jsonl.gz")[: config.max_networks]
    return [r for r in records if r["status"] == "ok"]


def interpreted_graphs(
    results_dir: Path, records: Sequence[dict], workers: Any, chunks: int = 1
) -> list[CodeGraph]:
    """The code graph of each network record, interpreted once and kept.

    Graphs are kept in ``results_dir/graphs.jsonl.gz``, keyed by the digest of the
    source and resolution: a study on a machine whose torch renders other snippet texts
    reads the graphs of the torch that timed the snippets. The rest are interpreted by
    ``workers`` (in ``chunks`` tasks) and added to the file.
    """
    path = results_dir / "graphs.jsonl.gz"
    known = {r["key"]: CodeGraph.from_json(r["graph"]) for r in read_records(path)}
    keys = [_source_key(r) for r in records]
    todo = [r for r, key in zip(records, keys, strict=True) if key not in known]
    parts = cobra_tasks.chunks(todo, chunks)
    sources = [[(r["source"], r["config"]["resolution"]) for r in part] for part in parts]
    interpreted = [workers.apply_async(cobra_tasks.interpret, (p,)) for p in sources]
    graphs = (g for task in interpreted for g in task.get())
    new = {_source_key(r): g for r, g in zip(todo, graphs, strict=True)}
    append_records(path, [{"key": k, "graph": g.to_json()} for k, g in new.items()])
    known.update(new)
    return [known[key] for key in keys]


def _source_key(record: dict) -> str:
    text = f"{record['config']['resolution']}\n{record['source']}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _layer_table(model: CobraModel, test: Sequence[dict]) -> dict[str, Any]:
    """Table 2: the latency head of COBRA's encoder on the test layers, per type."""
    ids = encode(model.tokenizer, [r["snippet"] for r in test], model.encoder.config.max_len)
    predicted = np.exp(predict_log_ms(model.encoder, ids))
    by_type: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(test):
        by_type[r["type"]].append(i)
    by_type["All"] = list(range(len(test)))
    measured = np.array([r["latency_ms"] for r in test])
    return {
        kind: {"n": len(rows), **metrics(measured[rows], predicted[rows])}
        for kind, rows in by_type.items()
    }


def run(config: CobraStudyConfig, on_progress: Callable[[str], None] | None = None) -> CobraResults:
    """Run what ``config.results_dir`` lacks; return every result (module docstring)."""
    say = on_progress or (lambda _: None)
    config.results_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    deadline = None if config.time_limit_s is None else start + config.time_limit_s
    # Two pools: the CPU-bound interpretation and ONNX export, and the training tasks
    # (which drive the GPU where there is one), so that the export does not hold up
    # the encoders in the queue.
    cpu, training = cobra_tasks.pool(config.workers), cobra_tasks.pool(config.workers)
    try:
        with tempfile.TemporaryDirectory(prefix="cobra-") as scratch:
            try:
                return _run(config, (cpu, training), Path(scratch), deadline, say)
            finally:
                cobra_tasks.forget(Path(scratch) / "data.pkl")
    finally:
        cpu.terminate()
        training.terminate()


def _run(
    config: CobraStudyConfig,
    pools: tuple[Any, Any],
    scratch: Path,
    deadline: float | None,
    say: Callable[[str], None],
) -> CobraResults:
    """:func:`run` with its pools (CPU tasks, training tasks) and a ``scratch`` folder."""
    path = config.results_dir / "networks.jsonl"
    results = read_jsonl(path, NetworkResult)
    done = {(r.method, r.seed) for r in results}
    waiting = [
        (method, seed)
        for seed in config.seeds  # the first seed of every method first
        for method in config.methods
        if (method, seed) not in done and (method != "layerwise" or seed == config.seeds[0])
    ]
    data = _load(config, pools[0], any(m == "nnlp" for m, _ in waiting))
    workers = pools[1]
    say(f"interpreted {len(data['networks'])} networks")
    networks, layers = data["networks"], data["layers"]
    if len(networks) < 3 or len(layers) < 3:
        raise ValueError(f"too little data: {len(networks)} networks, {len(layers)} layers")
    split = network_split(len(networks), config)
    l_split = _split(
        len(layers), config.split_seed, config.layer_test_share, config.layer_valid_share
    )
    tokenizer, reused = _tokenizer(config, data, split[0], l_split[0])
    shared = {k: data[k] for k in ("layers", "snippets", "networks", "graphs")}
    data_path = cobra_tasks.share(
        shared, scratch / "data.pkl", isinstance(workers, cobra_tasks.Inline)
    )
    summary_path = config.results_dir / "encoders.json"
    # Encoders saved without their tokenizer are stale.
    encoders = json.loads(summary_path.read_text()) if reused and summary_path.exists() else {}
    failed: list[str] = []
    running: dict[Any, tuple[str, Any]] = {}
    late = deadline is not None and time.monotonic() > deadline
    for variant, append in (("with-latency", True), ("without-latency", False)):
        if variant not in config.encoders:
            continue
        weights = config.results_dir / f"encoder-{variant}.pt"
        if not late and (variant not in encoders or not weights.exists()):
            say(f"pre-training the encoder {variant}")
            task = workers.apply_async(
                cobra_tasks.pretrain, (config, variant, append, data_path, l_split)
            )
            running[task] = ("encoder", variant)
    # Each (method, seed) waits for what it needs: COBRA for its encoder, NNLP for the
    # ONNX features; the rest start at once.
    onnx_parts, kept = data["onnx"]
    onnx = None
    measured = [networks[i]["latency_ms"] for i in split[2]]
    while waiting or running:
        late = deadline is not None and time.monotonic() > deadline
        if late and not any(task.ready() for task in running):
            say(f"time limit: {len(running)} tasks stopped, {len(waiting)} not started")
            for pool in pools:
                pool.terminate()  # free the cores and the GPU for the report
            break
        for method, seed in [] if late else list(waiting):
            if method in ("cobra", "cobra-mean"):
                if "with-latency" not in encoders:
                    continue
                extra = encoders["with-latency"]["config"]
            elif method == "nnlp":
                if onnx is None and all(p.ready() for p in onnx_parts):
                    try:
                        every = [f for p in onnx_parts for f in p.get()]
                    except Exception as exc:  # the other methods go on
                        failed.append(f"ONNX export: {exc!r}")
                        say(f"FAILED {failed[-1]}")
                        waiting = [w for w in waiting if w[0] != "nnlp"]
                        break
                    onnx = [every[i] for i in kept]
                if onnx is None:
                    continue
                extra = onnx
            else:
                extra = None
            waiting.remove((method, seed))
            say(f"{method} seed {seed}")
            task = workers.apply_async(
                cobra_tasks.fit, (config, method, seed, data_path, split, extra)
            )
            running[task] = ("fit", (method, seed))
        if not running:
            if not waiting:
                break
            time.sleep(0.2)  # only the ONNX export is left to wait for
            continue
        for task in cobra_tasks.wait_any(running, deadline):
            kind, key = running.pop(task)
            try:
                value = task.get()
            except Exception as exc:  # one failed task must not stop the rest
                failed.append(f"{kind} {key}: {exc!r}")
                say(f"FAILED {failed[-1]}")
                if key == "with-latency":  # COBRA's own: its GCNs cannot start
                    waiting = [w for w in waiting if w[0] not in ("cobra", "cobra-mean")]
                continue
            if kind == "encoder":
                encoders[key] = value
                summary_path.write_text(json.dumps(encoders, indent=1) + "\n")
                say(f"encoder {key}: best epoch {value['best_epoch']}")
            else:
                predicted, seconds = value
                scores = metrics(measured, predicted)
                result = NetworkResult(*key, scores, measured, predicted, seconds)
                record_result(results, result, path)
                say(f"{key[0]} seed {key[1]}: MAPE {scores['mape'] * 100:.1f} %")
    layer_table = {}
    if "with-latency" in encoders:
        model = cobra_tasks.cobra_model(config, encoders["with-latency"]["config"])
        model.encoder.to(config.pretrain.torch_device())
        layer_table = _layer_table(model, [layers[i] for i in l_split[2]])
    summary = {
        "networks": len(networks),
        "networks_without_all_layers_timed": data["skipped"],
        "split": [len(part) for part in split],
        "layers": len(layers),
        "layer_split": [len(p) for p in l_split],
        "snippets_timed": len(data["snippets"]),
        "layer_sum_ratio": _sum_ratios(data),
        "vocab": tokenizer.get_vocab_size(),
        "failed": failed,
    }
    return CobraResults(config, results, layer_table, encoders, summary)


def _tokenizer(
    config: CobraStudyConfig,
    data: dict[str, Any],
    train: Sequence[int],
    train_layers: Sequence[int],
) -> tuple[Any, bool]:
    """The WordPiece tokenizer of the training snippets (layers and networks), and whether
    it was read back: it is kept with the encoders in ``results_dir``, as their weights
    index its vocabulary."""
    path = config.results_dir / "tokenizer.json"
    if path.exists():
        return load_tokenizer(path), True
    layers, graphs = data["layers"], data["graphs"]
    corpus = [
        layers[i]["snippet"] + "\n" + latency_text(layers[i]["latency_ms"]) for i in train_layers
    ]
    corpus += [s.text for i in train for s in graphs[i].snippets]
    tokenizer = train_tokenizer(corpus, config.vocab_size)
    tokenizer.save(str(path))
    return tokenizer, False


def _sum_ratios(data: dict[str, Any]) -> list[float]:
    """Σ of each network's layers timed alone / the network timed whole: 10/50/90 %.

    A check of the two campaigns against each other: far below 1 for every network, the
    whole-network timings are inflated (a busy core), or the layers are not additive.
    """
    from nnlat.studies.cobra_baselines import layer_sum

    ratios = [
        layer_sum(g, data["snippets"]) / n["latency_ms"]
        for g, n in zip(data["graphs"], data["networks"], strict=True)
    ]
    return [float(q) for q in np.quantile(ratios, [0.1, 0.5, 0.9])]


def render(results: CobraResults) -> str:
    """The report: data, Table 1, Table 2, Figures 3 and 5 (the figures are PNG files)."""
    config, data = results.config, results.data
    lines = ["# COBRA: latency from source code", ""]
    if config.scale_note:
        lines += [f"**{config.scale_note}**", ""]
    lines += [
        f"Command: `{config.command}`",
        "",
        *[f"**Failed: {line}**\n" for line in data.get("failed", [])],
        f"Networks: {data['networks']} with every layer also timed alone "
        f"({data['networks_without_all_layers_timed']} without were left out); split "
        f"train / validation / test = {' / '.join(map(str, data['split']))}. Layers: "
        f"{data['layers']}, split {' / '.join(map(str, data['layer_split']))}. Tokenizer: "
        f"WordPiece, {data['vocab']} tokens, trained on the training snippets. Layers of a "
        "network timed alone sum to this share of the network timed whole (10 / 50 / 90 % "
        f"quantiles): {' / '.join(f'{q:.2f}' for q in data['layer_sum_ratio'])}. GCN seeds: "
        f"{', '.join(map(str, config.seeds))}.",
        "",
        "## Table 1: networks (test split)",
        "",
        "| method | seeds | MAPE % | RMSE (ms) | ±1 % | ±5 % | ±10 % | ±25 % "
        "| paper MAPE % / ±1/5/10/25 % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for method in METHODS:
        rows = [r for r in results.networks if r.method == method]
        if not rows:
            continue
        cells = [mean_sd([r.metrics["mape"] for r in rows])]
        rmse = [r.metrics["rmse_ms"] for r in rows]
        cells.append(
            f"{statistics.mean(rmse):.2f}"
            + (f" ± {statistics.stdev(rmse):.2f}" if len(rmse) > 1 else "")
        )
        cells += [mean_sd([r.metrics[f"acc_{round(b * 100)}"] for r in rows]) for b in BOUNDS]
        paper = PUBLISHED.get(method)
        published = f"{paper[0]} / {'/'.join(map(str, paper[1:]))}" if paper else "–"
        lines.append(
            f"| {TITLES[method]} | {len(rows)} | " + " | ".join(cells) + f" | {published} |"
        )
    lines += [
        "",
        "Percentages are mean ± standard deviation over seeds (fractions × 100); "
        "the layer-wise sum is deterministic.",
        "",
        "## Table 2: the encoder's latency head on single layers (test layers)",
        "",
        "| type | n | MAPE % | RMSE (ms) | ±1 % | ±5 % | ±10 % | ±25 % |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, row in sorted(results.layers.items(), key=lambda kv: (kv[0] == "All", kv[0])):
        cells = [f"{row['mape'] * 100:.1f}", f"{row['rmse_ms']:.3f}"]
        cells += [f"{row[f'acc_{round(b * 100)}'] * 100:.1f}" for b in BOUNDS]
        lines.append(f"| {kind} | {row['n']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Figure 3: predicted vs measured (test networks, first seed)",
        "",
        "![Figure 3](figure3.png)",
        "",
        "## Figure 5: perplexity on masked parameter tokens",
        "",
        "![Figure 5](figure5.png)",
        "",
        "| encoder pre-training | best epoch | test PPL (parameter tokens) |",
        "|---|---|---|",
    ]
    for variant, summary in results.encoders.items():
        lines.append(f"| {variant} | {summary['best_epoch']} | {summary['test_ppl']:.2f} |")
    return "\n".join(lines) + "\n"


def draw_figures(results: CobraResults, folder: Path) -> list[Path]:
    """Figure 3 (scatter) and Figure 5 (validation PPL per epoch) as PNG files in ``folder``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = results.config.seeds[0]
    fig, ax = plt.subplots(figsize=(5, 5))
    top = 0.0
    for method in ("brpnas", "brpnas++", "cobra"):
        row = next((r for r in results.networks if r.method == method and r.seed == first), None)
        if row is not None:
            ax.scatter(row.measured, row.predicted, s=12, label=TITLES[method])
            top = max(top, *row.measured, *row.predicted)
    ax.plot([0, top], [0, top], "k--", lw=0.8)
    ax.set_xlabel("measured latency (ms)")
    ax.set_ylabel("predicted latency (ms)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    paths = [folder / "figure3.png"]
    fig.savefig(paths[0], dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for variant, summary in results.encoders.items():
        history = summary["history"]
        ax.plot([h[0] for h in history], [h[3] for h in history], label=variant)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation PPL, masked parameter tokens")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    paths.append(folder / "figure5.png")
    fig.savefig(paths[1], dpi=120)
    plt.close(fig)
    return paths
