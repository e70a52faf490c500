"""``Predictor``: a trained graph network with its feature schema and platform heads.

One object holds everything a prediction needs: the :class:`FeatureSchema` fitted on
its training graphs, the network (NNLP by default, or another registered in
:data:`NETWORKS`), the platform of each head, and the versions it was trained under.
It saves as a directory of two files: ``weights.pt`` (the ``state_dict``, loaded with
``weights_only=True``: no pickled objects) and ``predictor.json`` (configuration,
vocabulary, scalers, platforms, versions, training summary), and refuses to load into
an nnlat whose feature schema or measurement protocol differs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch_geometric.data import Data

from nnlat.errors import NnlatError
from nnlat.features.parallel import MIN_PARALLEL, iter_raw_features
from nnlat.features.raw import RawFeatures
from nnlat.features.records import LatencyRecord
from nnlat.features.schema import FEATURE_SCHEMA_VERSION, FeatureSchema, GraphFeatures
from nnlat.forked import processes
from nnlat.graph.ir import Graph
from nnlat.measure.types import PROTOCOL_VERSION
from nnlat.predictor.batching import (
    DEFAULT_BATCH_SIZE,
    batches,
    predict_log_raw,
    torch_threads,
)
from nnlat.predictor.networks.brpnas import BrpnasConfig, BrpnasGcn
from nnlat.predictor.networks.kernel_sage import KernelSage, KernelSageConfig
from nnlat.predictor.networks.nnlp import Nnlp, NnlpConfig
from nnlat.predictor.training import (
    OnEpoch,
    TrainResult,
    TrainSettings,
    split_by_graph,
    train_network,
)
from nnlat.registry import Registry

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Network:
    """A registered graph network: how to build it from its configuration.

    Attributes:
        config_type: its configuration dataclass.
        build: configuration → network.
        older_checkpoints: values for configuration fields that checkpoints saved
            before the field existed lack; they are not today's defaults when a default
            has changed since.
    """

    config_type: type
    build: Callable[[Any], nn.Module]
    older_checkpoints: Mapping[str, object] = field(default_factory=dict)

    def defaults(self) -> dict[str, object]:
        """The configuration fields that have a default, with it.

        Example:
            >>> NETWORKS.get("nnlp").defaults()["readout"]
            'mean'
        """
        return {
            f.name: f.default
            for f in dataclasses.fields(self.config_type)
            if f.default is not dataclasses.MISSING
        }


NETWORKS: Registry[Network] = Registry("predictor network")
# NNLP's readout was the sum before it was recorded, and is the mean now.
NETWORKS.register("nnlp", Network(NnlpConfig, Nnlp, {"readout": "sum"}))
NETWORKS.register("brpnas", Network(BrpnasConfig, BrpnasGcn))
NETWORKS.register("kernel-sage", Network(KernelSageConfig, KernelSage))


class PredictorError(NnlatError):
    """A predictor cannot answer: unknown platform, incompatible checkpoint, no data."""


def to_data(features: GraphFeatures, platform: int, latency_ms: float | None = None) -> Data:
    """A PyG graph of ``features`` for the head ``platform`` (target ``y`` if given).

    ``kernel`` holds each node's kernel id. Its name must not contain ``index``: PyG
    would then offset it by the node count when batching, and ids are per graph.
    """
    data = Data(
        x=torch.from_numpy(features.node_x),
        edge_index=torch.from_numpy(features.edge_index),
        global_x=torch.from_numpy(features.global_x)[None, :],
        platform=torch.tensor([platform]),
        kernel=torch.from_numpy(features.kernel_ids),
    )
    if latency_ms is not None:
        data.y = torch.tensor([latency_ms], dtype=torch.float32)
    return data


class Predictor:
    """Predicts latencies on the platforms it has heads for.

    Attributes:
        schema: the feature schema fitted on the training graphs.
        net: the graph network.
        network: its registered name (``"nnlp"``).
        platforms: platform name of each head, in head order.
        info: training summary and versions, saved in ``predictor.json``.
    """

    def __init__(
        self,
        schema: FeatureSchema,
        net: nn.Module,
        network: str,
        platforms: Sequence[str],
        info: dict[str, Any] | None = None,
    ) -> None:
        self.schema = schema
        self.net = net.eval()
        self.network = network
        self.platforms = list(platforms)
        self.info = dict(info or {})

    # -- training -----------------------------------------------------------------------

    @classmethod
    def fit(
        cls,
        records: Sequence[LatencyRecord],
        *,
        network: str = "nnlp",
        settings: TrainSettings | None = None,
        config: dict[str, Any] | None = None,
        on_epoch: OnEpoch | None = None,
    ) -> tuple[Predictor, TrainResult]:
        """Train a predictor on ``records`` (one head per platform found in them).

        A ``settings.valid_fraction`` share of the graphs is held out for early stopping.

        Args:
            records: training records, any platforms.
            network: a name registered in :data:`NETWORKS`.
            settings: training settings.
            config: network hyper-parameters overriding the defaults (``hidden``, ...).
            on_epoch: progress callback.

        Raises:
            PredictorError: no records.
        """
        if not records:
            raise PredictorError("no training records: measure some models first")
        settings = settings or TrainSettings()
        platforms = sorted({r.platform for r in records})
        train_idx, _ = split_by_graph(
            [r.graph_hash for r in records], settings.valid_fraction, settings.seed
        )
        schema = FeatureSchema.fit(records[i].raw for i in train_idx)
        spec = NETWORKS.get(network)
        net_config = spec.config_type(
            node_dim=schema.node_dim,
            global_dim=schema.global_dim,
            platforms=len(platforms),
            **(config or {}),
        )
        torch.manual_seed(settings.seed)
        predictor = cls(schema, spec.build(net_config), network, platforms)
        return predictor, predictor.train(records, settings, on_epoch)

    def train(
        self,
        records: Sequence[LatencyRecord],
        settings: TrainSettings,
        on_epoch: OnEpoch | None = None,
    ) -> TrainResult:
        """Train this predictor's network on ``records`` (every platform must have a head).

        The validation share is drawn by graph with ``settings.seed``, so it is the same
        split :meth:`fit` fitted the schema without. ``info`` is replaced by a summary of
        this training.
        """
        train_idx, valid_idx = split_by_graph(
            [r.graph_hash for r in records], settings.valid_fraction, settings.seed
        )
        data = self._records_to_data(records)
        result = train_network(
            self.net, [data[i] for i in train_idx], [data[i] for i in valid_idx], settings, on_epoch
        )
        self.net.cpu().eval()
        self.info = {
            "trained_on": {
                "records": len(train_idx),
                "validation_records": len(valid_idx),
                "families": sorted({r.family for r in records}),
            },
            "settings": settings.model_dump(),
            "best_epoch": result.best_epoch,
            "best_valid_mape": result.best_valid_mape,
        }
        return result

    def _records_to_data(self, records: Sequence[LatencyRecord]) -> list[Data]:
        return [
            to_data(self.schema.encode(r.raw), self.head(r.platform), r.latency_ms) for r in records
        ]

    # -- prediction ---------------------------------------------------------------------

    def head(self, platform: str) -> int:
        """The head index of ``platform``.

        Raises:
            PredictorError: no head for it (the message lists the known platforms).
        """
        if platform not in self.platforms:
            raise PredictorError(
                f"this predictor has no head for platform {platform!r}; it knows "
                f"{', '.join(self.platforms)}. Measure some models on it and fine-tune "
                "(transfer) to add one"
            )
        return self.platforms.index(platform)

    def predict_raw(self, raws: Sequence[RawFeatures], platform: str) -> np.ndarray:
        """Predicted latencies (ms) of graphs on ``platform``, batched.

        Example:
            >>> from nnlat.testing.records import toy_predictor
            >>> predictor, records = toy_predictor()
            >>> predictor.predict_raw([r.raw for r in records[:2]], records[0].platform).shape
            (2,)
        """
        return np.exp(predict_log_raw(self.net, self.schema, raws, self.head(platform)))

    def predict_graphs(
        self, graphs: Sequence[Graph], platform: str, workers: int | None = None
    ) -> np.ndarray:
        """Predicted latencies (ms) of loaded graphs on ``platform``: features, then network.

        From :data:`~nnlat.features.parallel.MIN_PARALLEL` graphs on, the raw features
        are computed on ``workers`` cores (default: every core this process may run on)
        by forked workers and this process
        (:func:`~nnlat.features.parallel.iter_raw_features`); they stream into the
        network, which runs here batch by batch, on one torch thread meanwhile.

        Example:
            >>> from nnlat.graph import load
            >>> from nnlat.testing import tiny_model
            >>> from nnlat.testing.records import TOY_PLATFORM, toy_predictor
            >>> predictor, _ = toy_predictor()
            >>> predictor.predict_graphs([load(tiny_model())] * 3, TOY_PLATFORM).shape
            (3,)
        """
        head = self.head(platform)
        forked = processes(len(graphs), workers, MIN_PARALLEL) > 1
        with torch_threads(1 if forked else torch.get_num_threads()):
            raws = iter_raw_features(graphs, workers)
            return np.exp(predict_log_raw(self.net, self.schema, raws, head))

    @torch.no_grad()
    def predict_all(
        self, raws: Sequence[RawFeatures], batch_size: int = DEFAULT_BATCH_SIZE
    ) -> dict[str, np.ndarray]:
        """Predicted latencies (ms) of graphs on every platform: one embedding, all heads.

        A network without a shared graph embedding (no ``embed``, as the kernel-level
        ``kernel-sage``) runs once per platform instead.

        Example:
            >>> from nnlat.testing.records import toy_predictor
            >>> predictor, records = toy_predictor()
            >>> {k: v.shape for k, v in predictor.predict_all([records[0].raw]).items()}
            {'fake-fake1.0-fp32-t1': (1,)}
        """
        self.net.eval()
        outputs: list[list[np.ndarray]] = [[] for _ in self.platforms]
        for batch in batches(self.schema, raws, 0, batch_size):  # encoded once, every head
            if hasattr(self.net, "embed"):
                embedding = self.net.embed(batch)
                for index, head in enumerate(self.net.heads):
                    outputs[index].append(head(embedding).squeeze(-1).numpy())
                continue
            for index in range(len(self.platforms)):
                batch.platform = torch.full_like(batch.platform, index)
                outputs[index].append(self.net(batch).numpy())
        return {
            platform: np.exp(np.concatenate(out)) if out else np.zeros(0)
            for platform, out in zip(self.platforms, outputs, strict=True)
        }

    def predict_records(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Predicted latencies (ms) of records, each on its own platform."""
        heads = {platform: self.head(platform) for platform in {r.platform for r in records}}
        platforms = np.array([heads[r.platform] for r in records], dtype=np.int64)
        return np.exp(predict_log_raw(self.net, self.schema, [r.raw for r in records], platforms))

    # -- persistence --------------------------------------------------------------------

    def save(self, directory: Path | str) -> Path:
        """Write ``weights.pt`` and ``predictor.json`` into ``directory`` (replaced whole).

        Returns:
            The directory.
        """
        from nnlat.version import __version__

        directory = Path(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        sidecar = {
            "format_version": FORMAT_VERSION,
            "nnlat_version": __version__,
            "feature_schema_version": FEATURE_SCHEMA_VERSION,
            "protocol_version": PROTOCOL_VERSION,
            "network": self.network,
            "config": self.net.config.to_dict(),
            "platforms": self.platforms,
            "schema": self.schema.to_dict(),
            "info": self.info,
        }
        # Write to a sibling temporary directory, then swap: never half a predictor.
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
        # mkdtemp makes the directory private (0700); a saved predictor is shared like
        # its parent directory is.
        staging.chmod(directory.parent.stat().st_mode & 0o777)
        torch.save(self.net.state_dict(), staging / "weights.pt")
        (staging / "predictor.json").write_text(json.dumps(sidecar, indent=1) + "\n")
        if directory.exists():
            shutil.rmtree(directory)
        os.replace(staging, directory)
        return directory

    @classmethod
    def load(cls, directory: Path | str) -> Predictor:
        """Load a predictor saved by :meth:`save`.

        Raises:
            PredictorError: missing files, or saved under another feature schema,
                measurement protocol or format version (the message says which).
        """
        directory = Path(directory)
        try:
            sidecar = json.loads((directory / "predictor.json").read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise PredictorError(f"{directory} is not a saved predictor: {exc}") from None
        for key, ours in (
            ("format_version", FORMAT_VERSION),
            ("feature_schema_version", FEATURE_SCHEMA_VERSION),
            ("protocol_version", PROTOCOL_VERSION),
        ):
            if sidecar.get(key) != ours:
                raise PredictorError(
                    f"predictor {directory} was saved with {key} {sidecar.get(key)}, this "
                    f"nnlat uses {ours}: retrain it with `nnlat train`"
                )
        spec = NETWORKS.get(sidecar["network"])
        net = spec.build(spec.config_type(**{**spec.older_checkpoints, **sidecar["config"]}))
        state = torch.load(directory / "weights.pt", map_location="cpu", weights_only=True)
        net.load_state_dict(state)
        return cls(
            FeatureSchema.from_dict(sidecar["schema"]),
            net,
            sidecar["network"],
            sidecar["platforms"],
            sidecar.get("info"),
        )
