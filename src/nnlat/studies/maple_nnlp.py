"""NNLP's head fine-tune on the MAPLE pool: the graph network's answer to a new device.

MAPLE's Table 1 sets its hardware-aware regressor against transfer learning of a latency
predictor. Here that predictor is nnlat's own: NNLP (NNLQP's graph network) is pre-trained
with one head per source device on the source devices' training architectures, then the
target device gets a new head (initialised from the source head closest to its k shots,
NNLQP §6.2) that alone is trained on the k shots (:func:`nnlat.predictor.transfer.fine_tune`,
``part="heads"``). It sees no descriptor: what it knows of the device is the k latencies.

The graph NNLP reads is the search space's export (:attr:`Space.graph_family`): for
NAS-Bench-201 the architecture's ONNX export on the standard skeleton
(:func:`nnlat.zoo.nasbench201.arch_config`), the network the pool's int8 TFLite files were
converted from; for a TFLite space its int8 file. Its raw features are cached per
architecture, so a rerun does not export 1,100 networks again.

With a ``prior`` (the study's ``nnlp-lut``: the look-up-table sum of the architecture's
primitives on the device, from its descriptor) the network learns the correction factor
measured / prior instead of the latency, as ``maple-lut`` does: the factor varies far less
across devices (the latency spans 300x over the pool), and, the prior being fixed per
(architecture, device), MAPE on the factor is MAPE on the latency.

Pre-training is the cost (one network per group of left-out devices), so the study can
leave the devices out in a few groups (:func:`device_folds`, the study's ``nnlp_folds``)
rather than one at a time: each target's network has then seen fewer source devices than
the other methods' regressors, which can only make this column worse, never better.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nnlat.datasets.training import default_cache_dir
from nnlat.features.raw import RawFeatures, raw_features
from nnlat.features.records import LatencyRecord
from nnlat.graph import graph_key
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.training import TrainSettings
from nnlat.predictor.transfer import FINE_TUNE_SETTINGS, fine_tune
from nnlat.studies.maple_spaces import NB201, Space
from nnlat.zoo.registry import get_family


@dataclass(frozen=True)
class ArchGraph:
    """One architecture's graph as NNLP reads it: its hash, raw features and zoo family."""

    graph_hash: str
    raw: RawFeatures
    family: str = NB201.graph_family


def arch_graphs(
    archs: Sequence[str], space: Space = NB201, cache_dir: Path | None = None
) -> list[ArchGraph]:
    """The raw features of each architecture of ``space``, exported once and cached.

    Example:
        >>> from nnlat.zoo.nasbench201 import ALL_CONV3X3
        >>> [g] = arch_graphs([ALL_CONV3X3])
        >>> len(g.raw.op_types) > 0
        True
    """
    folder = (cache_dir or default_cache_dir()) / f"{space.graph_family}-archs"
    folder.mkdir(parents=True, exist_ok=True)
    family = get_family(space.graph_family)
    graphs = []
    for arch in archs:
        path = folder / f"{hashlib.sha256(arch.encode()).hexdigest()[:20]}.npz"
        if path.exists():
            with np.load(path) as arrays:
                stored = dict(arrays)
            digest = str(stored.pop("graph_hash"))
            graphs.append(ArchGraph(digest, RawFeatures.from_arrays(stored), space.graph_family))
            continue
        graph = family.model(space.config(arch)).to_graph()
        raw = raw_features(graph)
        digest = graph_key(graph).digest
        tmp = path.with_name(f".{path.stem}.tmp.npz")
        np.savez(tmp, graph_hash=np.array(digest), **raw.to_arrays())
        tmp.replace(path)  # a reader never sees half a file
        graphs.append(ArchGraph(digest, raw, space.graph_family))
    return graphs


def device_folds(devices: int, folds: int) -> list[list[int]]:
    """Devices left out together: device ``i`` in fold ``i % folds`` (fixed a priori).

    Example:
        >>> device_folds(5, 2)
        [[0, 2, 4], [1, 3]]
    """
    return [list(range(f, devices, folds)) for f in range(folds)]


@dataclass
class NnlpTransfer:
    """Pre-trained NNLP networks of a pool, one per fold of left-out devices.

    Attributes:
        graphs: per position of the pool table, its architecture's graph.
        latency_ms: the pool table's latencies, (positions, devices).
        devices: the pool's device (platform) names.
        folds: how many groups the devices are left out in (``len(devices)``: one by one).
        epochs: pre-training epochs (checkpoint on a validation share of the source
            devices' training architectures).
        prior_ms: per position and device, what the network corrects (it learns
            latency / prior and predicts prior x that); None: the latency itself.
    """

    graphs: list[ArchGraph]
    latency_ms: np.ndarray
    devices: list[str]
    folds: int
    epochs: int
    prior_ms: np.ndarray | None = field(default=None, repr=False)
    _pretrained: dict[int, Predictor] = field(default_factory=dict, repr=False)

    def _record(self, position: int, device: int) -> LatencyRecord:
        g = self.graphs[position]
        latency = float(self.latency_ms[position, device] / self._prior(position, device))
        return LatencyRecord(g.graph_hash, g.family, self.devices[device], 1, latency, g.raw)

    def _prior(self, position: int, device: int) -> float:
        return 1.0 if self.prior_ms is None else float(self.prior_ms[position, device])

    def pretrained(self, target: int, train: np.ndarray) -> Predictor:
        """NNLP trained on every device outside ``target``'s fold, on ``train`` positions."""
        fold = target % self.folds
        if fold not in self._pretrained:
            left_out = set(device_folds(len(self.devices), self.folds)[fold])
            sources = [j for j in range(len(self.devices)) if j not in left_out]
            records = [self._record(int(p), j) for j in sources for p in train]
            settings = TrainSettings(epochs=self.epochs, balance_platforms=True, device="cpu")
            self._pretrained[fold], _ = Predictor.fit(records, network="nnlp", settings=settings)
        return self._pretrained[fold]

    def predict(
        self, target: int, train: np.ndarray, shots: np.ndarray, test: np.ndarray, seed: int
    ) -> np.ndarray:
        """The target's test latencies (ms) after a head fine-tune on its ``shots``."""
        pretrained = self.pretrained(target, train)
        records = [self._record(int(p), target) for p in shots]
        settings = FINE_TUNE_SETTINGS.model_copy(update={"seed": seed, "device": "cpu"})
        tuned, _ = fine_tune(pretrained, records, settings=settings, part="heads")
        factor = tuned.predict_raw([self.graphs[int(p)].raw for p in test], self.devices[target])
        return factor * np.array([self._prior(int(p), target) for p in test])
