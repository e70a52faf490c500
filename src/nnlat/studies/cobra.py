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
``tokenizer.json``, ``encoders.json`` and the encoders' weights); a rerun skips what is
there (Table 2 is recomputed from the saved encoder). The COBRA model of the first seed
is saved in ``results_dir/model`` (what :func:`nnlat.predict_code` can load).
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.datasets.cobra import read_records
from nnlat.predictor.code.encoder import EncoderConfig
from nnlat.predictor.code.model import CobraModel
from nnlat.predictor.code.pretraining import PretrainSettings, predict_log_ms, pretrain_encoder
from nnlat.predictor.code.tokenizer import encode, latency_text, load_tokenizer, train_tokenizer
from nnlat.predictor.metrics import acc_within, mape
from nnlat.predictor.training import TrainSettings
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
        pretrain: the encoder's pre-training.
        encoder: the encoder's shape.
        gcn: the graph networks' training (COBRA, BRP-NAS, BRP-NAS++, NNLP).
        vocab_size: the tokenizer's vocabulary.
        command: the command that ran the study, for the report.
        scale_note: what the report says about the data's scale.
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
    pretrain: PretrainSettings = field(default_factory=PretrainSettings)
    encoder: EncoderConfig = field(default_factory=lambda: EncoderConfig(vocab_size=0))
    gcn: TrainSettings = field(
        default_factory=lambda: TrainSettings(
            epochs=300, batch_size=8, lr=1e-3, loss="mape", patience=60, device="cpu"
        )
    )
    vocab_size: int = 2048
    command: str = ""
    scale_note: str = ""


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


def _load(config: CobraStudyConfig) -> dict[str, Any]:
    """Interpreted networks (those fully timed layer by layer), layers, snippet latencies."""
    from nnlat.studies.cobra_baselines import covered
    from nnlat.zoo.cobra.networks import code_graph

    layers = read_records(config.data_dir / "layers.jsonl.gz")[: config.max_layers]
    layers = [r for r in layers if r["status"] == "ok"]
    snippets = {
        r["key"]: r["latency_ms"]
        for r in read_records(config.data_dir / "snippets.jsonl.gz")
        if r["status"] == "ok"
    }
    networks, graphs, skipped = [], [], 0
    for record in read_records(config.data_dir / "networks.jsonl.gz"):
        if record["status"] != "ok":
            continue
        graph = code_graph(record["source"], record["config"]["resolution"])
        if not covered(graph, snippets):
            skipped += 1
            continue
        networks.append(record)
        graphs.append(graph)
    return {
        "layers": layers,
        "snippets": snippets,
        "networks": networks,
        "graphs": graphs,
        "skipped": skipped,
    }


def _encoders(
    config: CobraStudyConfig,
    tokenizer: Any,
    layers: Sequence[dict],
    split: tuple,
    on_progress: Callable[[str], None],
    reuse: bool,
) -> tuple[dict[str, Any], Any]:
    """Pre-train both encoder variants (or read them back); COBRA's is the first."""
    import torch

    from nnlat.predictor.code.encoder import SnippetEncoder
    from nnlat.predictor.code.pretraining import parameter_perplexity

    train, valid, test = ([layers[i] for i in part] for part in split)
    summary_path = config.results_dir / "encoders.json"
    summary = json.loads(summary_path.read_text()) if reuse and summary_path.exists() else {}
    chosen = None
    for variant, append in (("with-latency", True), ("without-latency", False)):
        settings = PretrainSettings(**{**asdict(config.pretrain), "append_latency": append})
        weights = config.results_dir / f"encoder-{variant}.pt"
        if variant in summary and weights.exists():
            encoder = SnippetEncoder(EncoderConfig(**summary[variant]["config"]))
            encoder.load_state_dict(torch.load(weights, weights_only=True))
            encoder.eval()
        else:
            on_progress(f"pre-training the encoder {variant}")
            encoder, result = pretrain_encoder(
                tokenizer,
                ([r["snippet"] for r in train], [r["latency_ms"] for r in train]),
                ([r["snippet"] for r in valid], [r["latency_ms"] for r in valid]),
                settings,
                config.encoder,
                on_epoch=lambda row, v=variant: on_progress(f"{v} epoch {row}"),
            )
            test_ppl = parameter_perplexity(
                encoder,
                tokenizer,
                [r["snippet"] for r in test],
                [r["latency_ms"] for r in test],
                settings,
            )
            summary[variant] = {
                "config": encoder.config.to_dict(),
                "history": result.history,
                "best_epoch": result.best_epoch,
                "test_ppl": test_ppl,
                "seconds": result.seconds,
            }
            torch.save(encoder.state_dict(), weights)
            summary_path.write_text(json.dumps(summary, indent=1) + "\n")
        chosen = chosen or encoder
    return summary, chosen


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
    data = _load(config)
    graphs, networks, layers = data["graphs"], data["networks"], data["layers"]
    if len(networks) < 3 or len(layers) < 3:
        raise ValueError(f"too little data: {len(networks)} networks, {len(layers)} layers")
    n_train, n_valid, n_test = _split(
        len(networks), config.split_seed, config.test_share, config.valid_share
    )
    l_split = _split(
        len(layers), config.split_seed, config.layer_test_share, config.layer_valid_share
    )
    corpus = [
        layers[i]["snippet"] + "\n" + latency_text(layers[i]["latency_ms"]) for i in l_split[0]
    ]
    corpus += [s.text for i in n_train for s in graphs[i].snippets]
    # Kept with the encoders: their weights index its vocabulary.
    tokenizer_path = config.results_dir / "tokenizer.json"
    reuse = tokenizer_path.exists()  # encoders saved without their tokenizer are stale
    if reuse:
        tokenizer = load_tokenizer(tokenizer_path)
    else:
        tokenizer = train_tokenizer(corpus, config.vocab_size)
        tokenizer.save(str(tokenizer_path))
    encoders, encoder = _encoders(config, tokenizer, layers, l_split, say, reuse)
    model = CobraModel(tokenizer, encoder)
    layer_table = _layer_table(model, [layers[i] for i in l_split[2]])

    path = config.results_dir / "networks.jsonl"
    results = read_jsonl(path, NetworkResult)
    done = {(r.method, r.seed) for r in results}
    pairs = lambda idx: [(graphs[i], networks[i]["latency_ms"]) for i in idx]  # noqa: E731
    measured = [networks[i]["latency_ms"] for i in n_test]
    for seed in config.seeds:
        for method in config.methods:
            if method == "layerwise" and seed != config.seeds[0]:
                continue  # deterministic
            if (method, seed) in done:
                continue
            say(f"{method} seed {seed}")
            start = time.perf_counter()
            settings = config.gcn.model_copy(update={"seed": seed})
            if method == "cobra-mean":
                model.fit_gcn(pairs(n_train), pairs(n_valid), settings, {"readout": "mean"})
                predicted = model.predict([graphs[i] for i in n_test]).tolist()
            elif method == "cobra":
                model.fit_gcn(pairs(n_train), pairs(n_valid), settings)
                predicted = model.predict([graphs[i] for i in n_test]).tolist()
                if seed == config.seeds[0]:
                    model.info["study"] = {"command": config.command, "seed": seed}
                    model.info["platform"] = networks[0]["platform"]
                    model.save(config.results_dir / "model")
            else:
                predicted = _baseline(method, data, (n_train, n_valid, n_test), settings)
            result = NetworkResult(
                method,
                seed,
                metrics(measured, predicted),
                measured,
                [float(p) for p in predicted],
                time.perf_counter() - start,
            )
            record_result(results, result, path)
    summary = {
        "networks": len(networks),
        "networks_without_all_layers_timed": data["skipped"],
        "split": [len(n_train), len(n_valid), len(n_test)],
        "layers": len(layers),
        "layer_split": [len(p) for p in l_split],
        "snippets_timed": len(data["snippets"]),
        "layer_sum_ratio": _sum_ratios(data),
        "vocab": tokenizer.get_vocab_size(),
    }
    return CobraResults(config, results, layer_table, encoders, summary)


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


def _baseline(
    method: str, data: dict[str, Any], split: tuple, settings: TrainSettings
) -> list[float]:
    """Test predictions (ms) of one baseline trained on the split's training networks."""
    from nnlat.studies.cobra_baselines import layer_sum, layerwise_scale

    graphs, networks, snippets = data["graphs"], data["networks"], data["snippets"]
    train, valid, test = split
    y = {i: networks[i]["latency_ms"] for i in range(len(networks))}
    if method == "layerwise":
        sums = {i: layer_sum(graphs[i], snippets) for i in range(len(graphs))}
        scale = layerwise_scale([sums[i] for i in train + valid], [y[i] for i in train + valid])
        return [scale * sums[i] for i in test]
    if method == "nnlp":
        return _nnlp(networks, split, settings)
    return _brpnas(data, split, settings, with_latency=method == "brpnas++")


def _brpnas(
    data: dict[str, Any], split: tuple, settings: TrainSettings, with_latency: bool
) -> list[float]:
    import torch

    from nnlat.predictor.networks.brpnas import BrpnasConfig, BrpnasGcn
    from nnlat.predictor.training import predict_log, train_network
    from nnlat.studies.cobra_baselines import brpnas_data, brpnas_features

    graphs, networks = data["graphs"], data["networks"]
    train, valid, test = split
    kinds = sorted({s.kind for i in train for s in graphs[i].snippets})
    latencies = data["snippets"] if with_latency else None
    features = {i: brpnas_features(graphs[i], kinds, latencies) for i in train + valid + test}
    stacked = np.concatenate([features[i] for i in train])
    scaler = (stacked.mean(0), stacked.std(0) + 1e-6)
    as_data = lambda idx: [  # noqa: E731
        brpnas_data(features[i], graphs[i], scaler, networks[i]["latency_ms"]) for i in idx
    ]
    torch.manual_seed(settings.seed)
    net = BrpnasGcn(
        BrpnasConfig(
            node_dim=stacked.shape[1], global_dim=0, platforms=1, hidden=256, static_features=False
        )
    )
    train_network(net, as_data(train), as_data(valid), settings)
    return np.exp(predict_log(net, as_data(test))).tolist()


def _nnlp(networks: Sequence[dict], split: tuple, settings: TrainSettings) -> list[float]:
    from nnlat.features.raw import raw_features
    from nnlat.features.records import LatencyRecord
    from nnlat.predictor.predictor import Predictor
    from nnlat.zoo.cobra.networks import NETWORKS

    def record(i: int) -> LatencyRecord:
        graph = NETWORKS.model(networks[i]["config"]).to_graph()
        return LatencyRecord(
            networks[i]["graph_hash"],
            "cobra-net",
            networks[i]["platform"],
            1,
            networks[i]["latency_ms"],
            raw_features(graph),
        )

    train, valid, test = split
    fit = [record(i) for i in train + valid]
    # Predictor.fit draws its own validation networks (by graph hash) from the fit pool,
    # the same share as the study's.
    share = len(valid) / len(fit)
    predictor, _ = Predictor.fit(
        fit, network="nnlp", settings=settings.model_copy(update={"valid_fraction": share})
    )
    return predictor.predict_records([record(i) for i in test]).tolist()


def render(results: CobraResults) -> str:
    """The report: data, Table 1, Table 2, Figures 3 and 5 (the figures are PNG files)."""
    config, data = results.config, results.data
    lines = ["# COBRA: latency from source code", ""]
    if config.scale_note:
        lines += [f"**{config.scale_note}**", ""]
    lines += [
        f"Command: `{config.command}`",
        "",
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
