"""The training loop shared by the graph networks: Adam, a chosen loss, early stopping.

The network outputs log-latency; losses compare latencies (ms). With
``node_aux_weight`` above 0, a network with a node head (NNLP's) also learns each node's
share of the latency from the runtime's per-node profile (:func:`node_share_loss`). The
checkpoint kept is
the epoch with the lowest MAPE on the *validation* graphs, which the caller carves out
of the training data (:func:`split_by_graph`) — the test set is never looked at.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import torch
from pydantic import BaseModel, ConfigDict, Field
from torch import nn
from torch.utils.data import WeightedRandomSampler
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader
from torch_geometric.utils import scatter

from nnlat.predictor.metrics import mape

LossName = Literal["log-mse", "mse", "l1", "sre", "mape", "hybrid", "mape-rmse"]

# Called after each epoch: (epoch, train loss, validation MAPE or None).
OnEpoch = Callable[[int, float, float | None], None]


class TrainSettings(BaseModel):
    """How to train.

    Attributes:
        epochs: the most epochs to run.
        batch_size: graphs per step (the paper's 16).
        lr: Adam's learning rate (the paper's 0.001).
        weight_decay: the weight decay: an L2 penalty added to the gradient with ``adam``,
            decoupled from it with ``adamw``.
        optimiser: ``adam`` or ``adamw`` (BRP-NAS's).
        lr_plateau: halve the learning rate once the validation MAPE has not improved for
            more than this many epochs (torch's ``ReduceLROnPlateau`` patience; BRP-NAS's
            schedule is 10); None keeps it constant.
        loss: ``log-mse`` (squared error of log latencies, the default), ``mse`` (the
            paper's, on ms), ``l1`` (BRP-NAS's, on ms), ``sre`` (squared relative
            error), ``mape``, ``hybrid`` (log-mse + mape), or ``mape-rmse``
            (PerfSAGE's hybrid loss, its §4.3: MAPE + ``alpha_mse`` × the root mean
            squared error, the error measured in units of the head's mean training
            target so that α means the same for milliseconds and bytes).
        alpha_mse: the weight of the squared-error part of ``mape-rmse`` (PerfSAGE
            chose 10).
        log_anchor: weight of a squared error of log-targets added to ``loss`` (0: none).
            A head predicts the log of its target, so the gradient of any loss computed
            on the target itself (``mape``, ``mape-rmse``...) scales with the prediction;
            once a head's outputs fall far below its targets (PerfSAGE's CPU heads on
            ``cnn-kws``: e^-24 ms after 20 steps) that gradient vanishes and the head
            stays at 100 % MAPE. The log error's gradient does not vanish.
        median_head_selection: choose the epoch by the median of the heads' validation
            MAPEs instead of the MAPE over all validation graphs, so that one head whose
            target is noise cannot choose it for the others (PerfSAGE on cnn-imagenet: the
            CPU memory head's 84-197 % picked epoch 5, whose NPU latency was 34 % off
            where later epochs were 6-9 %).
        upsample_share: PerfSAGE's dataset up-sampling (its §4.4): repeat the training
            graphs of each family (design space) until every family holds at least this
            share of the training set (0: off; the paper's 0.1).
        patience: stop after this many epochs without a better validation MAPE.
        valid_fraction: share of training graphs held out for validation.
        balance_platforms: give every platform the same weight: batches draw each
            platform's records equally often (with replacement) and the validation score
            is the mean of the platforms' MAPEs. Without it a platform with few records
            beside one with many is both rarely trained on and barely heard when the
            checkpoint is chosen.
        node_aux_weight: weight of the auxiliary per-node loss (:func:`node_share_loss`)
            added to the latency loss; 0 (the default) trains on the latency alone.
            Above 0 the network needs a node head (NNLP's ``node_head``), and records
            their ``node_shares``.
        seed: seeds the split, the initial weights and the batch order.
        device: ``cpu``, ``cuda``, or ``auto`` (cuda when available).
    """

    model_config = ConfigDict(frozen=True)

    epochs: int = Field(default=150, ge=1)
    batch_size: int = Field(default=32, ge=1)
    lr: float = Field(default=1e-3, gt=0)
    weight_decay: float = Field(default=0.0, ge=0)
    loss: LossName = "log-mse"
    alpha_mse: float = Field(default=10.0, ge=0)
    log_anchor: float = Field(default=0.0, ge=0)
    median_head_selection: bool = False
    upsample_share: float = Field(default=0.0, ge=0, lt=1)
    optimiser: Literal["adam", "adamw"] = "adam"
    lr_plateau: int | None = Field(default=None, ge=0)
    patience: int = Field(default=25, ge=1)
    valid_fraction: float = Field(default=0.1, ge=0, lt=1)
    balance_platforms: bool = False
    node_aux_weight: float = Field(default=0.0, ge=0)
    seed: int = 0
    device: str = "auto"

    def torch_device(self) -> torch.device:
        """The device to train on."""
        return torch_device(self.device)


def torch_device(name: str) -> torch.device:
    """The device ``name`` names; ``"auto"`` is the GPU when there is one, else the CPU.

    Example:
        >>> torch_device("cpu").type
        'cpu'
    """
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def loss_value(
    name: LossName,
    log_pred: torch.Tensor,
    y_ms: torch.Tensor,
    alpha: float = 10.0,
    unit: torch.Tensor | None = None,
) -> torch.Tensor:
    """The mean loss of a batch.

    Args:
        name: the loss.
        log_pred: predicted log-targets.
        y_ms: measured targets.
        alpha: weight of the squared-error part of ``mape-rmse``.
        unit: per graph, the unit its error is measured in for ``mape-rmse`` (its head's
            mean training target); default 1.

    Example:
        >>> y = torch.tensor([2.0, 4.0])
        >>> round(float(loss_value("mape", torch.log(torch.tensor([2.2, 3.6])), y)), 4)
        0.1
        >>> round(float(loss_value("mape-rmse", torch.log(torch.tensor([2.2, 3.6])), y, 1.0)), 4)
        0.4162
    """
    pred = torch.exp(log_pred)
    log_mse = torch.mean((log_pred - torch.log(y_ms)) ** 2)
    relative = (pred - y_ms) / y_ms
    if name == "log-mse":
        return log_mse
    if name == "mse":
        return torch.mean((pred - y_ms) ** 2)
    if name == "l1":
        return torch.mean(torch.abs(pred - y_ms))
    if name == "sre":
        return torch.mean(relative**2)
    if name == "mape":
        return torch.mean(torch.abs(relative))
    if name == "mape-rmse":
        error = (pred - y_ms) / (unit if unit is not None else 1.0)
        # the epsilon keeps the square root's gradient finite at a perfect batch
        return torch.mean(torch.abs(relative)) + alpha * torch.sqrt(torch.mean(error**2) + 1e-12)
    return log_mse + torch.mean(torch.abs(relative))


def node_share_loss(
    predicted: torch.Tensor, target: torch.Tensor, graph_of_node: torch.Tensor
) -> torch.Tensor:
    """KL divergence of the predicted from the profiled split of each graph's time, over
    the nodes that have a target.

    Both the predicted shares (a softmax over each graph's nodes) and the profiled ones
    (NaN where a node has no target: fused away, not matched, or no profile) are
    renormalised over the nodes with a target, so nodes without one neither count nor
    pull their neighbours' shares. Graphs without targets add nothing.

    Args:
        predicted: per node, its predicted share of its graph's latency.
        target: per node, its profiled share, NaN for no target.
        graph_of_node: per node, its graph's index in the batch.

    Returns:
        The mean over graphs with targets (0 when none has).

    Example:
        >>> graphs = torch.tensor([0, 0, 1, 1])
        >>> same = torch.tensor([0.25, 0.75, 0.5, 0.5])
        >>> loss = node_share_loss(same, torch.tensor([1.0, 3.0, float("nan"), 2.0]), graphs)
        >>> abs(float(loss)) < 1e-6
        True
    """
    known = ~torch.isnan(target)
    if not bool(known.any()):
        return predicted.sum() * 0.0  # keeps the graph: backward() needs a grad_fn
    graphs = graph_of_node[known]
    p, t = predicted[known], target[known]
    p = p / scatter(p, graphs, reduce="sum")[graphs]
    t = t / scatter(t, graphs, reduce="sum")[graphs]
    per_node = torch.xlogy(t, t) - t * torch.log(p + 1e-12)
    count = int(torch.unique(graphs).numel())
    return per_node.sum() / count


def seed_everything(seed: int) -> None:
    """Seed Python, numpy and torch (initial weights, dropout, batch order)."""
    random.seed(seed)
    np.random.seed(seed)  # PyG and others draw from numpy's global state
    torch.manual_seed(seed)


def split_by_graph(keys: Sequence[str], fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Indices (train, validation), with every record of one graph on the same side.

    Example:
        >>> split_by_graph(["a", "a", "b", "c"], 0.34, seed=0)
        ([2, 3], [0, 1])
    """
    distinct = sorted(set(keys))
    random.Random(seed).shuffle(distinct)
    held = set(distinct[: round(len(distinct) * fraction)]) if fraction > 0 else set()
    train = [i for i, k in enumerate(keys) if k not in held]
    valid = [i for i, k in enumerate(keys) if k in held]
    return train, valid


def upsample(groups: Sequence[str], share: float) -> list[int]:
    """Indices into ``groups`` with each group's repeated a whole number of times, the
    fewest that give every group at least ``share`` of the result (PerfSAGE §4.4: small
    design spaces repeat, large ones appear once).

    Example:
        >>> idx = upsample(["a"] * 18 + ["b"] * 2, 0.2)
        >>> len(idx), sum(1 for i in idx if i >= 18)
        (24, 6)
    """
    counts: dict[str, int] = {}
    for group in groups:
        counts[group] = counts.get(group, 0) + 1
    if share * len(counts) >= 1:
        raise ValueError(f"{len(counts)} groups cannot each hold {share:.0%} of the data")
    repeats = dict.fromkeys(counts, 1)
    while True:  # raising one group's count lowers the others' shares: iterate to a fix
        total = sum(repeats[g] * n for g, n in counts.items())
        short = {g for g, n in counts.items() if repeats[g] * n < share * total}
        if not short:
            break
        for group in short:
            repeats[group] += 1
    return [i for r in range(max(repeats.values())) for i, g in enumerate(groups) if r < repeats[g]]


@dataclass
class TrainResult:
    """What training did.

    Attributes:
        best_epoch: the epoch whose weights were kept (1-based).
        best_valid_mape: its validation MAPE (None without validation data).
        history: (epoch, train loss, validation MAPE) per epoch.
        seconds: wall time.
        final_lr: the learning rate of the last epoch (below the initial one after
            ``lr_plateau`` halvings).
    """

    best_epoch: int = 0
    best_valid_mape: float | None = None
    history: list[tuple[int, float, float | None]] = field(default_factory=list)
    seconds: float = 0.0
    final_lr: float = 0.0


@torch.no_grad()
def predict_log(net: nn.Module, data: Sequence[Data], batch_size: int = 256) -> np.ndarray:
    """Log-latency predictions for ``data``, in order."""
    net.eval()
    device = next(net.parameters()).device
    out = [
        net(batch.to(device)).cpu().numpy()
        for batch in DataLoader(list(data), batch_size=batch_size, shuffle=False)
    ]
    return np.concatenate(out) if out else np.zeros(0)


def _platforms(data: Sequence[Data]) -> np.ndarray:
    return np.array([int(d.platform) for d in data])


def validation_mape(
    net: nn.Module, valid: Sequence[Data], per_platform: bool, median_head: bool = False
) -> float:
    """``net``'s MAPE on ``valid``: over all graphs, or the mean of each platform's (head's),
    or with ``median_head`` the median of the heads' MAPEs."""
    predicted = np.exp(predict_log(net, valid))
    measured = np.array([float(d.y) for d in valid])
    if not (per_platform or median_head):
        return mape(measured, predicted)
    heads = _platforms(valid)
    per_head = [mape(measured[heads == h], predicted[heads == h]) for h in set(heads)]
    return float(np.median(per_head) if median_head else np.mean(per_head))


def platform_weights(data: Sequence[Data]) -> torch.Tensor:
    """Per-graph sampling weights that give each platform (head) the same total.

    Example:
        >>> from torch_geometric.data import Data
        >>> graphs = [Data(platform=torch.tensor([h])) for h in (0, 0, 0, 1)]
        >>> platform_weights(graphs).tolist()
        [0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 1.0]
    """
    heads = _platforms(data)
    counts = np.bincount(heads)
    return torch.from_numpy(1.0 / counts[heads]).float()


def head_means(data: Sequence[Data]) -> torch.Tensor:
    """Each head's mean target over ``data`` (1 for a head without graphs).

    Example:
        >>> graphs = [Data(platform=torch.tensor([h]), y=torch.tensor([v]))
        ...           for h, v in ((0, 2.0), (0, 4.0), (2, 5.0))]
        >>> head_means(graphs).tolist()
        [3.0, 1.0, 5.0]
    """
    heads = _platforms(data)
    values = np.array([float(d.y) for d in data])
    sums = np.bincount(heads, weights=values)
    counts = np.bincount(heads)
    return torch.from_numpy(np.where(counts > 0, sums / np.maximum(counts, 1), 1.0)).float()


def batch_loader(train: Sequence[Data], settings: TrainSettings) -> DataLoader:
    """Shuffled batches of ``train``, one pass per epoch; platform-balanced if asked."""
    generator = torch.Generator().manual_seed(settings.seed)
    if not settings.balance_platforms:
        return DataLoader(
            list(train), batch_size=settings.batch_size, shuffle=True, generator=generator
        )
    # Drawn with replacement, an epoch still holds len(train) graphs: the rare
    # platform's graphs repeat, the common one's are subsampled.
    sampler = WeightedRandomSampler(
        platform_weights(train), len(train), replacement=True, generator=generator
    )
    return DataLoader(list(train), batch_size=settings.batch_size, sampler=sampler)


def train_network(
    net: nn.Module,
    train: Sequence[Data],
    valid: Sequence[Data],
    settings: TrainSettings,
    on_epoch: OnEpoch | None = None,
) -> TrainResult:
    """Train ``net`` in place; keep the weights of the best validation epoch.

    Args:
        net: maps a PyG batch to log-latencies.
        train: graphs with ``y`` (latency, ms).
        valid: held-out graphs for early stopping; without them the last epoch is kept.
        settings: optimiser, loss, epochs, patience, seed, device.
        on_epoch: progress callback.
    """
    seed_everything(settings.seed)
    device = settings.torch_device()
    net.to(device)
    kind = torch.optim.AdamW if settings.optimiser == "adamw" else torch.optim.Adam
    # The fused kernels step every tensor in one call. On this CPU the default per-tensor
    # loop took a third of the BRP-NAS GCN's training time (cProfile of a fit); fused,
    # a step over its 600-wide weights ran about 3x faster (timing optimiser.step()).
    optimiser = kind(
        net.parameters(),
        lr=settings.lr,
        weight_decay=settings.weight_decay,
        fused=device.type in ("cpu", "cuda"),
    )
    schedule = None
    if settings.lr_plateau is not None and valid:
        schedule = torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimiser, factor=0.5, patience=settings.lr_plateau
        )
    loader = batch_loader(train, settings)
    unit = head_means(train).to(device)
    result = TrainResult()
    best_state, stale = None, 0
    start = time.perf_counter()
    for epoch in range(1, settings.epochs + 1):
        net.train()
        total, seen = 0.0, 0
        for batch in loader:
            batch = batch.to(device)
            optimiser.zero_grad()
            unit_of = unit[batch.platform]
            if settings.node_aux_weight > 0:
                log_pred, shares = net.forward_with_nodes(batch)
            else:
                log_pred, shares = net(batch), None
            loss = loss_value(settings.loss, log_pred, batch.y, settings.alpha_mse, unit_of)
            if settings.log_anchor > 0:
                loss = loss + settings.log_anchor * loss_value("log-mse", log_pred, batch.y)
            if shares is not None:
                aux = node_share_loss(shares, batch.node_share, batch.batch)
                loss = loss + settings.node_aux_weight * aux
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * batch.num_graphs
            seen += batch.num_graphs
        score = (
            validation_mape(net, valid, settings.balance_platforms, settings.median_head_selection)
            if valid
            else None
        )
        if schedule is not None:
            schedule.step(score)
        result.history.append((epoch, total / max(seen, 1), score))
        if on_epoch is not None:
            on_epoch(epoch, total / max(seen, 1), score)
        if score is None or result.best_valid_mape is None or score < result.best_valid_mape:
            result.best_epoch, result.best_valid_mape = epoch, score
            best_state, stale = copy.deepcopy(net.state_dict()), 0
        else:
            stale += 1
            if stale >= settings.patience:
                break
    if best_state is not None:
        net.load_state_dict(best_state)
    net.eval()
    result.seconds = time.perf_counter() - start
    result.final_lr = float(optimiser.param_groups[0]["lr"])
    return result
