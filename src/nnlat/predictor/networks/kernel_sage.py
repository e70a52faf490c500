"""The "TPU" baseline of NNLQP: GraphSAGE per kernel, kernel latencies summed, then corrected.

NNLQP (Appendix E) describes it as: "We first use GraphSAGE to predict the latency of
kernels. The same as nn-Meter, we correct the sum of kernel latencies by the linear
regression method, and obtain the model latency". Here:

* every node belongs to a fused kernel (``kernel_ids`` of
  :class:`~nnlat.features.raw.RawFeatures`, carried into the PyG graphs as ``kernel``
  by :func:`~nnlat.predictor.predictor.to_data`);
* ``layers`` SAGEConv layers (mean aggregation, L2-normalised outputs, ReLU, as in
  :class:`~nnlat.predictor.networks.nnlp.Nnlp`) run over the *intra-kernel* edges only:
  each kernel is a separate subgraph, as a kernel-level predictor sees it;
* a kernel's embedding is the sum of its nodes'; a per-platform head maps it to the log
  of the kernel's latency (ms), and the kernel latencies of a graph are summed;
* the sum is corrected linearly, ``latency = a·sum + b``, with ``a`` and ``b`` positive
  (stored as logs) and one pair per head.

Our records carry whole-model latencies only, no kernel measurements, so nothing can
fit the kernel predictor and then a regression on its sums separately: the network is
trained end to end through the sum, and ``a`` and ``b`` are learned jointly with the
rest instead of being fitted by linear regression afterwards. Like the paper's
kernel-level predictor, the network does not read the graph's static features.

Registered as ``"kernel-sage"`` in :data:`nnlat.predictor.predictor.NETWORKS`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch_geometric.data import Data
from torch_geometric.nn import SAGEConv, global_add_pool

from nnlat.predictor.networks.nnlp import latency_head

# The correction's offset b at initialisation (see KernelHead).
_INITIAL_OFFSET_MS = 0.01


@dataclass(frozen=True)
class KernelSageConfig:
    """The kernel-level GraphSAGE's hyper-parameters.

    Attributes:
        node_dim, global_dim: input widths (from the feature schema; ``global_dim`` is
            kept for the common constructor of registered networks, the network does not
            read the static features).
        platforms: number of heads.
        hidden: width of node and kernel embeddings and of the heads' first layer.
        layers: SAGEConv layers.
        dropout: dropout in the heads.

    Example:
        >>> c = KernelSageConfig(node_dim=4, global_dim=2, platforms=1, hidden=8)
        >>> KernelSageConfig(**c.to_dict()) == c
        True
    """

    node_dim: int
    global_dim: int
    platforms: int
    hidden: int = 128
    layers: int = 3
    dropout: float = 0.05

    def to_dict(self) -> dict[str, object]:
        """JSON-able form, for checkpoint sidecars."""
        return asdict(self)


class KernelHead(nn.Module):
    """One platform's head: kernel embedding → log kernel latency, and the sum's correction.

    The correction lives in the head so that copying a head (transfer to a new
    platform) copies it too. It starts at ``a = 1`` and ``b = 10 µs``, an offset small
    next to any model's latency: the network starts as the plain kernel sum, and
    training grows ``b`` where models share a fixed overhead. (An offset starting near
    the latencies themselves would put a floor under every prediction, and Adam moves
    ``log b`` by about one learning rate per step, too slowly to lift it.)

    Example:
        >>> head = KernelHead(KernelSageConfig(node_dim=4, global_dim=2, platforms=1, hidden=8))
        >>> head(torch.ones(5, 8)).shape
        torch.Size([5])
        >>> round(head.correct(torch.log(torch.tensor([2.0]))).exp().item(), 4)  # 1·2 + 0.01
        2.01
    """

    def __init__(self, config: KernelSageConfig) -> None:
        super().__init__()
        self.kernel = latency_head(config.hidden, config.hidden, config.dropout)
        self.log_scale = nn.Parameter(torch.zeros(()))
        self.log_offset = nn.Parameter(torch.tensor(math.log(_INITIAL_OFFSET_MS)))

    def forward(self, kernels: torch.Tensor) -> torch.Tensor:
        """Log-latency (ms) of each kernel embedding (kernels × ``hidden``)."""
        return self.kernel(kernels).squeeze(-1)

    def correct(self, log_sum: torch.Tensor) -> torch.Tensor:
        """``log(a·sum + b)`` from ``log(sum)``, computed in log space (no overflow)."""
        return torch.logaddexp(self.log_scale + log_sum, self.log_offset.expand_as(log_sum))


class KernelSage(nn.Module):
    """The kernel-level GraphSAGE network (see the module docstring).

    Attributes:
        config: the :class:`KernelSageConfig` (``platforms`` follows :meth:`add_head`).
        heads: one :class:`KernelHead` per platform.

    Example:
        >>> from torch_geometric.data import Batch, Data
        >>> net = KernelSage(KernelSageConfig(node_dim=4, global_dim=2, platforms=3, hidden=8))
        >>> g = Data(x=torch.ones(3, 4), edge_index=torch.tensor([[0, 1], [1, 2]]),
        ...          kernel=torch.tensor([0, 0, 1]), global_x=torch.zeros(1, 2),
        ...          platform=torch.tensor([2]))
        >>> net(Batch.from_data_list([g, g])).shape
        torch.Size([2])
    """

    def __init__(self, config: KernelSageConfig) -> None:
        super().__init__()
        self.config = config
        dims = [config.node_dim] + [config.hidden] * config.layers
        self.convs = nn.ModuleList(
            SAGEConv(a, b, aggr="mean", normalize=True) for a, b in itertools.pairwise(dims)
        )
        self.heads = nn.ModuleList(KernelHead(config) for _ in range(config.platforms))

    def add_head(self) -> int:
        """Append a head (with its correction) for a new platform; return its index.

        Example:
            >>> net = KernelSage(KernelSageConfig(node_dim=4, global_dim=2, platforms=1))
            >>> net.add_head(), net.config.platforms
            (1, 2)
        """
        self.heads.append(KernelHead(self.config))
        self.config = KernelSageConfig(**{**self.config.to_dict(), "platforms": len(self.heads)})
        return len(self.heads) - 1

    def kernel_embeddings(self, batch: Data) -> tuple[torch.Tensor, torch.Tensor]:
        """Each kernel's embedding and the graph it belongs to.

        A kernel is a (graph, kernel id) pair: ids restart at 0 in every graph and PyG
        does not offset them when batching, so both go into one key.

        Args:
            batch: a PyG ``Batch`` (or a single ``Data``) with ``x``, ``edge_index`` and
                ``kernel`` (int64 per node).

        Returns:
            ``(embeddings, graph)``: kernels × ``hidden``, and the batch index of each
            kernel's graph (kernels ordered by graph, then kernel id).
        """
        x, edge_index, kernel = batch.x, batch.edge_index, batch.kernel
        graph_of = batch.batch
        if graph_of is None:
            graph_of = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        intra = kernel[edge_index[0]] == kernel[edge_index[1]]
        edge_index = edge_index[:, intra]
        for conv in self.convs:
            x = torch.relu(conv(x, edge_index))
        stride = int(kernel.max()) + 1
        keys, kernel_of = torch.unique(graph_of * stride + kernel, return_inverse=True)
        return global_add_pool(x, kernel_of, size=keys.shape[0]), keys // stride

    def forward(self, batch: Data) -> torch.Tensor:
        """Log-latency per graph of ``batch`` on the platform in ``batch.platform``."""
        kernels, graph = self.kernel_embeddings(batch)
        platform = batch.platform
        log_kernel = torch.empty(kernels.shape[0], device=kernels.device, dtype=kernels.dtype)
        for index in torch.unique(platform).tolist():
            rows = platform[graph] == index
            log_kernel[rows] = self.heads[index](kernels[rows])
        log_sum = _log_sum_per_graph(log_kernel, graph, platform.shape[0])
        out = torch.empty_like(log_sum)
        for index in torch.unique(platform).tolist():
            rows = platform == index
            out[rows] = self.heads[index].correct(log_sum[rows])
        return out


def _log_sum_per_graph(log_values: torch.Tensor, graph: torch.Tensor, graphs: int) -> torch.Tensor:
    """``log Σ exp(log_values)`` per graph, shifted by each graph's maximum.

    Summing ``exp`` directly overflows float32 once a head outputs more than ~88.
    The shift cancels out, so it carries no gradient.
    """
    shift = torch.full((graphs,), -torch.inf, device=log_values.device, dtype=log_values.dtype)
    shift = shift.scatter_reduce(0, graph, log_values.detach(), reduce="amax")
    total = torch.zeros_like(shift).index_add(0, graph, torch.exp(log_values - shift[graph]))
    return torch.log(total) + shift
