"""``Predictor``: a trained graph network with its feature schema and (platform, target) heads.

One object holds everything a prediction needs: the :class:`FeatureSchema` fitted on
its training graphs, the network (NNLP by default, or another registered in
:data:`NETWORKS`), the platform and target (latency, memory, energy: see
:data:`~nnlat.features.records.TARGET_UNITS`) of each head, and the versions it was
trained under. Every head reads the same graph embedding, so all targets on all
platforms of a model cost one embedding (:meth:`Predictor.predict_heads`).

A head outputs the log of its target divided by a per-head scale (``log_scales``: 0
for latency, whose milliseconds are already of order one; the training geometric mean
for memory and energy, so that a head starting near zero is not a factor 10^5 off).

It saves as a directory of two files: ``weights.pt`` (the ``state_dict``, loaded with
``weights_only=True``: no pickled objects) and ``predictor.json`` (configuration,
vocabulary, scalers, platforms, targets, scales, versions, training summary), and
refuses to load into an nnlat whose feature schema or measurement protocol differs. A
checkpoint saved before targets existed loads as latency heads.
"""

from __future__ import annotations

import dataclasses
import json
import math
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
from nnlat.features.records import TARGET_UNITS, LatencyRecord
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
from nnlat.predictor.hardware_check import HARDWARE_KEY, fingerprints_by_platform
from nnlat.predictor.networks.brpnas import BrpnasConfig, BrpnasGcn
from nnlat.predictor.networks.kernel_sage import KernelSage, KernelSageConfig
from nnlat.predictor.networks.nnlp import Nnlp, NnlpConfig
from nnlat.predictor.networks.perfsage import PerfSage, PerfSageConfig
from nnlat.predictor.ranges import RANGES_KEY, training_ranges
from nnlat.predictor.saving import replaced_directory
from nnlat.predictor.training import (
    OnEpoch,
    TrainResult,
    TrainSettings,
    split_by_graph,
    train_network,
    upsample,
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
NETWORKS.register("perfsage", Network(PerfSageConfig, PerfSage))

LATENCY = "latency"


class PredictorError(NnlatError):
    """A predictor cannot answer: unknown platform, incompatible checkpoint, no data."""


def _log_scale(records: Sequence[LatencyRecord], platform: str, target: str) -> float:
    """A head's output offset: 0 for latency (ms), else the log of the geometric mean of
    its training values (bytes or joules are far from 1)."""
    if target == LATENCY:
        return 0.0
    values = [v for r in records if r.platform == platform and (v := r.target(target))]
    return float(np.mean(np.log(values))) if values else 0.0


def to_data(
    features: GraphFeatures,
    platform: int,
    latency_ms: float | None = None,
    node_share: np.ndarray | None = None,
) -> Data:
    """A PyG graph of ``features`` for the head ``platform`` (target ``y`` if given, in
    the head's scaled unit; ``node_share``: the per-node auxiliary target, NaN for none).

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
    if node_share is not None:
        data.node_share = torch.from_numpy(np.asarray(node_share, dtype=np.float32))
    return data


class Predictor:
    """Predicts latencies (and memory, energy) on the platforms it has heads for.

    Attributes:
        schema: the feature schema fitted on the training graphs.
        net: the graph network.
        network: its registered name (``"nnlp"``).
        platforms: platform name of each head, in head order.
        targets: target of each head (``"latency"``, ``"memory"``, ``"energy"``).
        log_scales: each head's output is ``log(value) - log_scale``.
        info: training summary and versions, saved in ``predictor.json``.
    """

    def __init__(
        self,
        schema: FeatureSchema,
        net: nn.Module,
        network: str,
        platforms: Sequence[str],
        info: dict[str, Any] | None = None,
        targets: Sequence[str] | None = None,
        log_scales: Sequence[float] | None = None,
    ) -> None:
        self.schema = schema
        self.net = net.eval()
        self.network = network
        self.platforms = list(platforms)
        self.targets = list(targets) if targets is not None else [LATENCY] * len(self.platforms)
        self.log_scales = (
            [float(v) for v in log_scales]
            if log_scales is not None
            else [0.0] * len(self.platforms)
        )
        if not len(self.platforms) == len(self.targets) == len(self.log_scales):
            raise PredictorError("platforms, targets and log_scales must have one entry a head")
        self.info = dict(info or {})

    @property
    def heads(self) -> list[tuple[str, str]]:
        """(platform, target) of each head, in head order.

        Example:
            >>> from nnlat.testing.records import toy_predictor
            >>> toy_predictor()[0].heads
            [('fake-fake1.0-fp32-t1', 'latency')]
        """
        return list(zip(self.platforms, self.targets, strict=True))

    def add_head_name(self, platform: str, target: str = LATENCY, log_scale: float = 0.0) -> None:
        """Record a head the network has just grown (transfer learning)."""
        self.platforms.append(platform)
        self.targets.append(target)
        self.log_scales.append(log_scale)

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
        targets: Sequence[str] = (LATENCY,),
    ) -> tuple[Predictor, TrainResult]:
        """Train a predictor on ``records``: one head per (platform, target) found in them.

        A ``settings.valid_fraction`` share of the graphs is held out for early stopping.

        Args:
            records: training records, any platforms.
            network: a name registered in :data:`NETWORKS`.
            settings: training settings.
            config: network hyper-parameters overriding the defaults (``hidden``, ...).
            on_epoch: progress callback.
            targets: the targets to learn (each gets a head on every platform whose
                records carry it).

        Raises:
            PredictorError: no records, or none carries any of ``targets``.
        """
        if not records:
            raise PredictorError("no training records: measure some models first")
        if unknown := [t for t in targets if t not in TARGET_UNITS]:
            raise PredictorError(f"unknown target {unknown[0]!r}; known: {', '.join(TARGET_UNITS)}")
        settings = settings or TrainSettings()
        config = dict(config or {})
        if settings.node_aux_weight > 0:
            if "node_head" not in NETWORKS.get(network).defaults():
                raise PredictorError(
                    f"the {network} network has no node head for node_aux_weight; use nnlp"
                )
            config["node_head"] = True
        train_idx, _ = split_by_graph(
            [r.graph_hash for r in records], settings.valid_fraction, settings.seed
        )
        heads = sorted(
            {(r.platform, t) for r in records for t in targets if r.target(t) is not None}
        )
        if not heads:
            raise PredictorError(f"no record carries a target of {', '.join(targets)}")
        schema = FeatureSchema.fit(records[i].raw for i in train_idx)
        spec = NETWORKS.get(network)
        net_config = spec.config_type(
            node_dim=schema.node_dim,
            global_dim=schema.global_dim,
            platforms=len(heads),
            **config,
        )
        torch.manual_seed(settings.seed)
        log_scales = [_log_scale([records[i] for i in train_idx], p, t) for p, t in heads]
        predictor = cls(
            schema,
            spec.build(net_config),
            network,
            [p for p, _ in heads],
            targets=[t for _, t in heads],
            log_scales=log_scales,
        )
        return predictor, predictor.train(records, settings, on_epoch)

    def train(
        self,
        records: Sequence[LatencyRecord],
        settings: TrainSettings,
        on_epoch: OnEpoch | None = None,
    ) -> TrainResult:
        """Train this predictor's network on ``records`` (every platform must have a head).

        Each record gives one training graph per head of its platform whose target it
        carries. The validation share is drawn by graph with ``settings.seed``, so it is
        the same split :meth:`fit` fitted the schema without. With
        ``settings.upsample_share`` the training graphs of every family (design space)
        are repeated until each holds that share of the training set
        (:func:`~nnlat.predictor.training.upsample`). ``info`` is replaced by a summary
        of this training, with the range of each graph-level value over ``records``
        (validation share included: :mod:`nnlat.predictor.ranges`).
        """
        train_idx, valid_idx = split_by_graph(
            [r.graph_hash for r in records], settings.valid_fraction, settings.seed
        )
        if settings.upsample_share > 0:
            repeats = upsample([records[i].family for i in train_idx], settings.upsample_share)
            train_idx = [train_idx[i] for i in repeats]
        nodes = settings.node_aux_weight > 0
        train = [d for i in train_idx for d in self._record_data(records[i], nodes)]
        valid = [d for i in valid_idx for d in self._record_data(records[i], nodes)]
        if not train:
            raise PredictorError(
                "no training record carries a target this predictor has a head for"
            )
        result = train_network(self.net, train, valid, settings, on_epoch)
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
            HARDWARE_KEY: fingerprints_by_platform((r.platform, r.hardware) for r in records),
            RANGES_KEY: training_ranges(r.raw for r in records),
        }
        return result

    def _record_data(self, record: LatencyRecord, node_targets: bool = False) -> list[Data]:
        """One training graph per head of ``record``'s platform whose target it carries;
        with ``node_targets``, each carries the per-node shares (NaN where none: every
        node of a record without a profile, and of a memory or energy head)."""
        features = None
        out = []
        for index, (platform, target) in enumerate(self.heads):
            value = record.target(target) if platform == record.platform else None
            if value is None:
                continue
            features = features or self.schema.encode(record.raw)
            shares = None
            if node_targets:
                shares = np.full(len(record.raw.op_types), np.nan)
                if target == LATENCY and record.node_shares is not None:
                    shares = record.node_shares
            scaled = value / math.exp(self.log_scales[index])
            out.append(to_data(features, index, scaled, shares))
        return out

    # -- prediction ---------------------------------------------------------------------

    def head(self, platform: str, target: str = LATENCY) -> int:
        """The head index of ``target`` on ``platform``.

        Raises:
            PredictorError: no head for it (the message lists the known platforms, or
                the targets known on the platform).
        """
        if platform not in self.platforms:
            raise PredictorError(
                f"this predictor has no head for platform {platform!r}; it knows "
                f"{', '.join(dict.fromkeys(self.platforms))}. Measure some models on it and "
                "fine-tune (transfer) to add one"
            )
        if (platform, target) not in self.heads:
            known = [t for p, t in self.heads if p == platform]
            raise PredictorError(
                f"this predictor does not predict {target} on {platform!r}; it predicts "
                f"{', '.join(known)} there"
            )
        return self.heads.index((platform, target))

    def _values(self, log_scaled: np.ndarray, heads: int | np.ndarray) -> np.ndarray:
        """Network outputs → target values, in the heads' units."""
        return np.exp(log_scaled + np.asarray(self.log_scales, dtype=np.float64)[heads])

    def predict_raw(
        self, raws: Sequence[RawFeatures], platform: str, target: str = LATENCY
    ) -> np.ndarray:
        """Predicted ``target`` of graphs on ``platform`` (latency in ms), batched.

        Example:
            >>> from nnlat.testing.records import toy_predictor
            >>> predictor, records = toy_predictor()
            >>> predictor.predict_raw([r.raw for r in records[:2]], records[0].platform).shape
            (2,)
        """
        head = self.head(platform, target)
        return self._values(predict_log_raw(self.net, self.schema, raws, head), head)

    def predict_graphs(
        self,
        graphs: Sequence[Graph],
        platform: str,
        workers: int | None = None,
        target: str = LATENCY,
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
        head = self.head(platform, target)
        forked = processes(len(graphs), workers, MIN_PARALLEL) > 1
        with torch_threads(1 if forked else torch.get_num_threads()):
            raws = iter_raw_features(graphs, workers)
            return self._values(predict_log_raw(self.net, self.schema, raws, head), head)

    @torch.inference_mode()
    def predict_heads(
        self, raws: Sequence[RawFeatures], batch_size: int = DEFAULT_BATCH_SIZE
    ) -> dict[tuple[str, str], np.ndarray]:
        """Every head's prediction for graphs: one embedding per graph, all heads.

        A network without a shared graph embedding (no ``embed``, as the kernel-level
        ``kernel-sage``) runs once per head instead.

        Returns:
            (platform, target) → values in the target's unit, one per graph.

        Example:
            >>> from nnlat.testing.records import toy_predictor
            >>> predictor, records = toy_predictor()
            >>> {k: v.shape for k, v in predictor.predict_heads([records[0].raw]).items()}
            {('fake-fake1.0-fp32-t1', 'latency'): (1,)}
        """
        self.net.eval()  # every module: a head added since may still be training
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
            key: self._values(np.concatenate(out), index) if out else np.zeros(0)
            for index, (key, out) in enumerate(zip(self.heads, outputs, strict=True))
        }

    def predict_all(
        self, raws: Sequence[RawFeatures], batch_size: int = DEFAULT_BATCH_SIZE
    ) -> dict[str, np.ndarray]:
        """Predicted latencies (ms) of graphs on every platform: one embedding, all heads.

        Example:
            >>> from nnlat.testing.records import toy_predictor
            >>> predictor, records = toy_predictor()
            >>> {k: v.shape for k, v in predictor.predict_all([records[0].raw]).items()}
            {'fake-fake1.0-fp32-t1': (1,)}
        """
        every = self.predict_heads(raws, batch_size)
        return {p: values for (p, t), values in every.items() if t == LATENCY}

    def predict_records(
        self, records: Sequence[LatencyRecord], target: str = LATENCY
    ) -> np.ndarray:
        """Predicted ``target`` of records, each on its own platform (latency in ms)."""
        heads = {p: self.head(p, target) for p in {r.platform for r in records}}
        index = np.array([heads[r.platform] for r in records], dtype=np.int64)
        out = predict_log_raw(self.net, self.schema, [r.raw for r in records], index)
        return self._values(out, index)

    # -- persistence --------------------------------------------------------------------

    def save(self, directory: Path | str) -> Path:
        """Write ``weights.pt`` and ``predictor.json`` into ``directory`` (replaced whole).

        Returns:
            The directory.
        """
        from nnlat.version import __version__

        directory = Path(directory)
        sidecar = {
            "format_version": FORMAT_VERSION,
            "nnlat_version": __version__,
            "feature_schema_version": FEATURE_SCHEMA_VERSION,
            "protocol_version": PROTOCOL_VERSION,
            "network": self.network,
            "config": self.net.config.to_dict(),
            "platforms": self.platforms,
            "targets": self.targets,
            "log_scales": self.log_scales,
            "schema": self.schema.to_dict(),
            "info": self.info,
        }
        with replaced_directory(directory) as staging:  # never half a predictor
            torch.save(self.net.state_dict(), staging / "weights.pt")
            (staging / "predictor.json").write_text(json.dumps(sidecar, indent=1) + "\n")
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
            targets=sidecar.get("targets"),  # None before targets existed: latency heads
            log_scales=sidecar.get("log_scales"),
        )
