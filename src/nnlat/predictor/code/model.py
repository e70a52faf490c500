"""``CobraModel``: tokenizer, frozen snippet encoder and GCN, with what they learned from.

One object predicts a network's latency from its :class:`~nnlat.code.graph.CodeGraph`:
each distinct snippet is tokenised and embedded by the frozen encoder (the embedding ⊕
the encoder's own log-latency estimate, standardised with the training nodes' scaler),
and the GCN reads those node features over the call graph.

It also keeps the *domain* it was trained on (:class:`Domain`): the snippet kinds, the
largest tensor of each kind, the largest network and the latency range. :meth:`notes`
says, in words, where a graph falls outside it (an unseen kind, a layer larger than any
seen, more layers than any training network); a prediction with notes is an
extrapolation, and :func:`nnlat.predictor.code.api.predict_code` says so.

Saved as a directory: ``tokenizer.json``, ``encoder.pt``, ``gcn.pt`` (state dicts, loaded
with ``weights_only=True``) and ``cobra.json`` (configurations, scaler, domain, versions).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tokenizers import Tokenizer
from torch_geometric.data import Data

from nnlat.code.graph import CodeGraph
from nnlat.errors import NnlatError
from nnlat.predictor.code.encoder import EncoderConfig, SnippetEncoder
from nnlat.predictor.code.pretraining import pad_ids
from nnlat.predictor.code.tokenizer import encode, load_tokenizer
from nnlat.predictor.networks.cobra import CobraGcn, CobraGcnConfig
from nnlat.predictor.saving import replaced_directory
from nnlat.predictor.training import TrainResult, TrainSettings, predict_log, train_network

FORMAT_VERSION = 1
# Beyond this factor of the largest tensor seen for a kind, a layer is "larger than seen".
SIZE_MARGIN = 1.5
MAX_CACHED_SNIPPETS = 100_000  # embeddings kept per model (~260 bytes each at C = 64)


class CobraError(NnlatError):
    """A COBRA model that cannot be loaded, or a graph it cannot read."""


def largest_tensor(shapes: Sequence[Sequence[int]]) -> int:
    """Elements of the largest of ``shapes``.

    Example:
        >>> largest_tensor([(1, 64, 56, 56), (1, 10)])
        200704
    """
    return max((math.prod(s) for s in shapes), default=0)


@dataclass
class Domain:
    """What the model was trained on, to tell an interpolation from an extrapolation.

    Attributes:
        kinds: snippet kind → the largest output tensor (elements) seen of that kind.
        max_snippets: the most snippets of a training network.
        latency_ms: (smallest, largest) training network latency.
        max_tokens: the encoder's token limit (longer snippets are cut).
    """

    kinds: dict[str, int] = field(default_factory=dict)
    max_snippets: int = 0
    latency_ms: tuple[float, float] = (0.0, 0.0)
    max_tokens: int = 0

    def add(self, graph: CodeGraph) -> None:
        """Widen the domain by a training graph."""
        for snippet in graph.snippets:
            size = largest_tensor(snippet.output_shapes)
            self.kinds[snippet.kind] = max(self.kinds.get(snippet.kind, 0), size)
        self.max_snippets = max(self.max_snippets, len(graph.snippets))


@dataclass
class CobraModel:
    """The three trained parts of COBRA and their domain (module docstring).

    Attributes:
        tokenizer: the snippet tokenizer.
        encoder: the frozen snippet encoder.
        gcn: the GCN (None until :meth:`fit_gcn`).
        scaler: (mean, std) of the node features over the training networks' nodes.
        domain: what the GCN was trained on.
        info: training summary, saved in the sidecar.
    """

    tokenizer: Tokenizer
    encoder: SnippetEncoder
    gcn: CobraGcn | None = None
    scaler: tuple[np.ndarray, np.ndarray] | None = None
    domain: Domain = field(default_factory=Domain)
    info: dict[str, Any] = field(default_factory=dict)
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    # -- node features ------------------------------------------------------------------

    @torch.no_grad()
    def snippet_features(self, texts: Sequence[str], batch: int = 128) -> np.ndarray:
        """Per snippet: the frozen embedding ⊕ the latency head's log(ms) (N × (C + 1)).

        Distinct texts are embedded once per model (kept in a cache), on the encoder's
        device.
        """
        self.encoder.eval()
        if len(self._cache) > MAX_CACHED_SNIPPETS:  # a long-lived process: bounded memory
            self._cache.clear()
        missing = sorted({t for t in texts if t not in self._cache}, key=len)
        for start in range(0, len(missing), batch):
            chunk = missing[start : start + batch]
            ids = pad_ids(encode(self.tokenizer, chunk, self.encoder.config.max_len))
            embedding = self.encoder.embed(ids.to(self.encoder.tokens.weight.device))
            log_ms = self.encoder.log_latency(embedding)[:, None]
            rows = torch.cat([embedding, log_ms], 1).cpu().numpy()
            for text, row in zip(chunk, rows, strict=True):
                self._cache[text] = row
        width = self.encoder.config.dim + 1
        if not texts:
            return np.zeros((0, width), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts]).astype(np.float32)

    def graph_data(self, graph: CodeGraph, latency_ms: float | None = None) -> Data:
        """The GCN's input for one graph (``y`` = latency if given).

        Raises:
            CobraError: a graph without snippets, or a model without a fitted scaler.
        """
        if not graph.snippets:
            raise CobraError("the code has no layer calls: nothing to predict")
        if self.scaler is None:
            raise CobraError("this COBRA model has no GCN yet: fit_gcn() first")
        features = self.snippet_features([s.text for s in graph.snippets])
        mean, std = self.scaler
        edges = np.array(graph.edges, dtype=np.int64).reshape(-1, 2).T
        data = Data(
            x=torch.from_numpy(((features - mean) / std).astype(np.float32)),
            edge_index=torch.from_numpy(edges),
            platform=torch.tensor([0]),
        )
        if latency_ms is not None:
            data.y = torch.tensor([latency_ms], dtype=torch.float32)
        return data

    # -- training and prediction --------------------------------------------------------

    def fit_gcn(
        self,
        train: Sequence[tuple[CodeGraph, float]],
        valid: Sequence[tuple[CodeGraph, float]],
        settings: TrainSettings,
        config: dict[str, Any] | None = None,
    ) -> TrainResult:
        """Train a fresh GCN on (graph, latency ms) pairs; the encoder stays frozen.

        The scaler and the domain are fitted on ``train`` alone; the epoch kept is the
        one with the lowest MAPE on ``valid``.
        """
        features = np.concatenate(
            [self.snippet_features([s.text for s in g.snippets]) for g, _ in train]
        )
        self.scaler = (features.mean(0), features.std(0) + 1e-6)
        self.domain = Domain(max_tokens=self.encoder.config.max_len)
        for graph, _ in train:
            self.domain.add(graph)
        latencies = [ms for _, ms in train]
        self.domain.latency_ms = (min(latencies), max(latencies))
        torch.manual_seed(settings.seed)
        self.gcn = CobraGcn(CobraGcnConfig(node_dim=features.shape[1], **(config or {})))
        result = train_network(
            self.gcn,
            [self.graph_data(g, ms) for g, ms in train],
            [self.graph_data(g, ms) for g, ms in valid],
            settings,
        )
        self.gcn.cpu().eval()
        self.info["gcn"] = {
            "best_epoch": result.best_epoch,
            "valid_mape": result.best_valid_mape,
            "train_networks": len(train),
            "valid_networks": len(valid),
            "settings": settings.model_dump(),
        }
        return result

    def predict(self, graphs: Sequence[CodeGraph]) -> np.ndarray:
        """Predicted latencies (ms) of ``graphs``.

        Raises:
            CobraError: no GCN, or a graph without snippets.
        """
        if self.gcn is None:
            raise CobraError("this COBRA model has no GCN yet: fit_gcn() first")
        return np.exp(predict_log(self.gcn, [self.graph_data(g) for g in graphs]))

    def notes(self, graph: CodeGraph, latency_ms: float | None = None) -> list[str]:
        """Where ``graph`` lies outside the training domain, in words (empty: inside).

        Example:
            >>> from nnlat.code.graph import Snippet
            >>> m = CobraModel(None, None, domain=Domain({"Conv2d": 100}, 3, (1.0, 9.0), 64))
            >>> g = CodeGraph((Snippet("LSTM", "y=...", "m.py:3", ((1, 8),)),), (), (), "")
            >>> m.notes(g)
            ['snippet kinds never seen in training: LSTM (1, first at m.py:3)']
        """
        notes, unseen, larger = [], {}, {}
        for snippet in graph.snippets:
            seen = self.domain.kinds.get(snippet.kind)
            if seen is None:
                unseen.setdefault(snippet.kind, []).append(snippet.location)
            elif largest_tensor(snippet.output_shapes) > SIZE_MARGIN * seen:
                larger.setdefault(snippet.kind, []).append(snippet.location)
        if unseen:
            listed = ", ".join(f"{k} ({len(v)}, first at {v[0] or '?'})" for k, v in unseen.items())
            notes.append(f"snippet kinds never seen in training: {listed}")
        if larger:
            listed = ", ".join(f"{k} ({len(v)}, first at {v[0] or '?'})" for k, v in larger.items())
            notes.append(f"layers with tensors over {SIZE_MARGIN}x the largest seen: {listed}")
        if len(graph.snippets) > self.domain.max_snippets:
            notes.append(
                f"{len(graph.snippets)} layer calls, more than any training network "
                f"({self.domain.max_snippets})"
            )
        low, high = self.domain.latency_ms
        if latency_ms is not None and not low / 2 <= latency_ms <= high * 2:
            notes.append(
                f"the prediction ({latency_ms:.3g} ms) is outside the training networks' "
                f"latencies ({low:.3g}-{high:.3g} ms)"
            )
        return notes

    # -- persistence --------------------------------------------------------------------

    def save(self, directory: Path | str) -> Path:
        """Write the model into ``directory`` (replaced whole); return it."""
        from nnlat.version import __version__

        if self.gcn is None or self.scaler is None:
            raise CobraError("fit_gcn() before saving")
        directory = Path(directory)
        sidecar = {
            "format_version": FORMAT_VERSION,
            "nnlat_version": __version__,
            "encoder": self.encoder.config.to_dict(),
            "gcn": self.gcn.config.to_dict(),
            "scaler": [self.scaler[0].tolist(), self.scaler[1].tolist()],
            "domain": asdict(self.domain),
            "info": self.info,
        }
        with replaced_directory(directory) as staging:
            self.tokenizer.save(str(staging / "tokenizer.json"))
            torch.save(self.encoder.state_dict(), staging / "encoder.pt")
            torch.save(self.gcn.state_dict(), staging / "gcn.pt")
            (staging / "cobra.json").write_text(json.dumps(sidecar, indent=1) + "\n")
        return directory

    @classmethod
    def load(cls, directory: Path | str) -> CobraModel:
        """Load a model saved by :meth:`save`.

        Raises:
            CobraError: missing or unreadable files, or another format version.
        """
        directory = Path(directory)
        try:
            sidecar = json.loads((directory / "cobra.json").read_text())
            tokenizer = load_tokenizer(directory / "tokenizer.json")
        except Exception as exc:
            raise CobraError(f"{directory} is not a saved COBRA model: {exc}") from None
        if sidecar.get("format_version") != FORMAT_VERSION:
            raise CobraError(
                f"COBRA model {directory} has format {sidecar.get('format_version')}, this "
                f"nnlat reads {FORMAT_VERSION}: retrain it"
            )
        encoder = SnippetEncoder(EncoderConfig(**sidecar["encoder"]))
        encoder.load_state_dict(torch.load(directory / "encoder.pt", weights_only=True))
        gcn = CobraGcn(CobraGcnConfig(**sidecar["gcn"]))
        gcn.load_state_dict(torch.load(directory / "gcn.pt", weights_only=True))
        domain = sidecar["domain"]
        domain["latency_ms"] = tuple(domain["latency_ms"])
        return cls(
            tokenizer,
            encoder.eval(),
            gcn.eval(),
            (np.array(sidecar["scaler"][0]), np.array(sidecar["scaler"][1])),
            Domain(**domain),
            sidecar.get("info", {}),
        )
