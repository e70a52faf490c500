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
