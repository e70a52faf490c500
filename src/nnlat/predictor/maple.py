"""MAPLE's hardware-aware regressor: (architecture encoding, hardware descriptor) → latency.

Abbasi et al. (CVPRW 2022, §3.4): a dual-stream network. The architecture encoding goes
through two hidden layers to a 32-dimensional vector; that vector, concatenated with the
device's descriptor, goes through two more hidden layers to the latency. Adaptation to a
new device is no fine-tuning: its few measurements are *mixed into the training set* with
a larger weight (eq. 3: weighted mean absolute error, initial samples weighted
``1/sqrt(|X|)`` and adaptation samples ``1/sqrt(|X̂|)`` — so the few count as much, in
total, as ``sqrt(|X̂| · |X|)`` of the many).

Here the target is log-latency (errors are relative, as the ±10 % metric is), the inputs
are standardised on the training rows, and training is full-batch Adam for a fixed number
of steps — the data are small (16 devices × 900 rows) and a fixed budget needs no
validation split, which a 3-shot device could not spare anyway.

Example:
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> arch, desc = rng.random((64, 6)), rng.random((64, 3))
    >>> y = np.exp(arch.sum(1) + desc[:, 0])
    >>> model = MapleRegressor(steps=50).fit(arch, desc, y)
    >>> model.predict(arch[:2], desc[:2]).shape
    (2,)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class MapleRegressor:
    """The dual-stream MLP, trained on log-latency with a weighted L1 loss.

    Attributes:
        hidden: width of the hidden layers.
        embedding: width of the architecture stream's output (MAPLE: 32).
        steps: full-batch Adam steps.
        lr: Adam's learning rate.
        weight_decay: Adam's L2 penalty.
        seed: initialisation seed.
    """

    hidden: int = 64
    embedding: int = 32
    steps: int = 1500
    lr: float = 3e-3
    weight_decay: float = 1e-5
    seed: int = 0

    def fit(
        self,
        arch: np.ndarray,
        descriptor: np.ndarray,
        latency: np.ndarray,
        weight: np.ndarray | None = None,
    ) -> MapleRegressor:
        """Train on rows of (encoding, descriptor, latency).

        Args:
            arch: ``(n, a)`` architecture encodings.
            descriptor: ``(n, d)`` descriptors of each row's device (``d`` may be 0).
            latency: ``(n,)`` positive latencies (any unit; predictions come in it).
            weight: ``(n,)`` sample weights (MAPLE's mixing); all ones if None.

        Returns:
            self.
        """
        import torch

        torch.manual_seed(self.seed)
        self._arch_scale = _Scaler.fit(arch)
        self._desc_scale = _Scaler.fit(descriptor)
        x_a = torch.as_tensor(self._arch_scale(arch), dtype=torch.float32)
        x_d = torch.as_tensor(self._desc_scale(descriptor), dtype=torch.float32)
        log_y = np.log(np.asarray(latency, dtype=np.float64))
        self._y_mean, self._y_std = float(log_y.mean()), float(log_y.std() or 1.0)
        y = torch.as_tensor((log_y - self._y_mean) / self._y_std, dtype=torch.float32)
        w = torch.ones(len(y)) if weight is None else torch.as_tensor(weight, dtype=torch.float32)
        w = w / w.sum()
        self._net = _DualStream(arch.shape[1], descriptor.shape[1], self.hidden, self.embedding)
        optimiser = torch.optim.Adam(
            self._net.parameters(), lr=self.lr, weight_decay=self.weight_decay
        )
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, self.steps)
        for _ in range(self.steps):
            optimiser.zero_grad()
            loss = (w * (self._net(x_a, x_d) - y).abs()).sum()
            loss.backward()
            optimiser.step()
            schedule.step()
        return self

    def predict(self, arch: np.ndarray, descriptor: np.ndarray) -> np.ndarray:
        """Predicted latencies, ``(n,)``, in the unit of the training latencies."""
        import torch

        with torch.no_grad():
            out = self._net(
                torch.as_tensor(self._arch_scale(arch), dtype=torch.float32),
                torch.as_tensor(self._desc_scale(descriptor), dtype=torch.float32),
            ).numpy()
        return np.exp(out.astype(np.float64) * self._y_std + self._y_mean)


def mixing_weights(initial: int, adaptation: int) -> np.ndarray:
    """MAPLE's eq. 3 weights: ``1/sqrt(initial)`` each, then ``1/sqrt(adaptation)`` each.

    Example:
        >>> mixing_weights(4, 1).tolist()
        [0.5, 0.5, 0.5, 0.5, 1.0]
    """
    return np.concatenate(
        [np.full(initial, initial**-0.5), np.full(adaptation, max(adaptation, 1) ** -0.5)]
    )


@dataclass(frozen=True)
class _Scaler:
    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, x: np.ndarray) -> _Scaler:
        std = x.std(axis=0)
        return cls(x.mean(axis=0), np.where(std > 1e-12, std, 1.0))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return (x - self.mean) / self.std


def _DualStream(arch_dim: int, desc_dim: int, hidden: int, embedding: int):  # type: ignore[no-untyped-def]  # noqa: N802
    """The network: architecture → 2 hidden → ``embedding``; [that, descriptor] → 2 hidden → 1."""
    import torch
    from torch import nn

    class DualStream(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.arch = nn.Sequential(
                nn.Linear(arch_dim, hidden),
                nn.ReLU(),
                nn.Linear(hidden, hidden),
                nn.ReLU(),
                nn.Linear(hidden, embedding),
            )
            self.joint = nn.Sequential(
                nn.Linear(embedding + desc_dim, hidden),
                nn.ReLU(),
                nn.Linear(hidden, hidden),
                nn.ReLU(),
                nn.Linear(hidden, 1),
            )

        def forward(self, arch: torch.Tensor, desc: torch.Tensor) -> torch.Tensor:
            return self.joint(torch.cat([self.arch(arch), desc], dim=1)).squeeze(1)

    return DualStream()


@dataclass
class OpCostTransfer:
    """Latency as counted operators × per-operator cost, carried to a new device.

    On one Vela NPU an architecture's latency is close to linear in how many of each
    operator it has after conversion. The model takes each architecture's *priced design*
    on a device: its operator counts times the device's descriptor cost of each operator
    (each primitive estimated alone, summed as the architecture would sum it; ms), and the
    cost of the fixed part last (:func:`priced`). A pool device's *efficiency* — the
    least-squares weights ``η_d`` of ``latency ≈ design · η_d`` on its training
    architectures — says how much of the alone-cost survives in a network (cascading, fused
    activations, memory overlap). A new device gets one candidate per pool device (``η_d``
    applied to the new device's own design), each scaled by the median measured / predicted
    ratio of the k shots. The candidates are averaged in log space with weights
    ``exp(-(e - e_min) / temperature)``, ``e`` the candidate's mean absolute log error on
    the shots after scaling (with no shots: the descriptor distance,
    ``distance_temperature``). With costs shared by every architecture the efficiency is the
    fitted per-operator cost over the descriptor cost; a pricing may also make the costs
    depend on the architecture (where its tensors land, :mod:`nnlat.studies.maple_traffic`).

    Attributes:
        temperature: softness of the weighting by shot error (log units).
        distance_temperature: softness of the weighting by descriptor distance (0 shots).

    Example:
        >>> rng = np.random.default_rng(0)
        >>> counts = rng.integers(0, 4, (40, 3)).astype(float)
        >>> costs = np.array([[1.0, 2.0, 3.0, 5.0], [2.0, 4.0, 6.0, 10.0]])
        >>> latency = np.stack([counts @ c[:3] + c[3] for c in costs], axis=1)
        >>> model = OpCostTransfer().fit(priced(counts, costs), latency)
        >>> target = priced(counts, costs[:1] * 3)[0]
        >>> adapted = model.adapt(target[:3], latency[:3, 0] * 3, np.array([1.0, 2.0]))
        >>> np.allclose(model.predict(target[3:5], adapted), latency[3:5, 0] * 3)
        True
    """

    temperature: float = 0.01
    distance_temperature: float = 1.0

    def fit(self, design: np.ndarray, latency: np.ndarray) -> OpCostTransfer:
        """Fit each pool device's efficiency.

        Args:
            design: ``(devices, n, f + 1)`` the training architectures' priced designs on
                each pool device (:func:`priced`).
            latency: ``(n, devices)`` their latencies on the pool devices.

        Returns:
            self.
        """
        self.efficiency_ = np.stack(
            [np.linalg.lstsq(design[d], latency[:, d], rcond=None)[0] for d in range(len(design))]
        )  # (devices, f + 1)
        return self

    def adapt(
        self, shot_design: np.ndarray, shot_latency: np.ndarray, distance: np.ndarray
    ) -> np.ndarray:
        """One candidate efficiency per pool device for the new device, and its weight.

        Args:
            shot_design: ``(k, f + 1)`` the shots' priced designs on the new device (k may
                be 0).
            shot_latency: ``(k,)`` their measured latencies on the new device.
            distance: ``(devices,)`` descriptor distance from it to each pool device.

        Returns:
            ``(devices, f + 2)``: each row a candidate's efficiency (shot-scaled), then its
            weight (the weights sum to 1); :meth:`predict` takes it as is.
        """
        candidates = self.efficiency_
        if len(shot_latency):
            # A least-squares fit may go negative far from its data: floor it.
            predicted = np.maximum(shot_design @ candidates.T, 1e-9)
            log_ratio = np.log(shot_latency[:, None] / predicted)  # (k, devices)
            scale = np.median(log_ratio, axis=0)
            candidates = candidates * np.exp(scale)[:, None]
            error = np.abs(log_ratio - scale).mean(axis=0)
            weight = np.exp(-(error - error.min()) / self.temperature)
        else:
            weight = np.exp(-(distance - distance.min()) / self.distance_temperature)
        return np.concatenate([candidates, (weight / weight.sum())[:, None]], axis=1)

    def predict(self, design: np.ndarray, adapted: np.ndarray) -> np.ndarray:
        """Latencies ``(n,)`` of architectures with priced ``design`` on the adapted device."""
        candidates, weight = adapted[:, :-1], adapted[:, -1]
        predicted = design @ candidates.T  # (n, devices)
        return np.exp(np.log(np.maximum(predicted, 1e-9)) @ weight)


def priced(counts: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Operator counts times each device's operator costs: :class:`OpCostTransfer`'s design.

    Args:
        counts: ``(n, f)`` operator counts.
        costs: ``(devices, f + 1)`` each operator's cost, then the fixed part's; or
            ``(devices, n, f + 1)`` where the costs depend on the architecture.

    Returns:
        ``(devices, n, f + 1)``; summed over the last axis, the look-up-table latency.

    Example:
        >>> priced(np.array([[2.0, 0.0]]), np.array([[1.0, 5.0, 3.0]])).tolist()
        [[[2.0, 0.0, 3.0]]]
    """
    with_constant = np.concatenate([counts, np.ones((len(counts), 1))], axis=1)
    costs = costs[:, None, :] if costs.ndim == 2 else costs
    return with_constant[None] * costs
