"""NNLP: GraphSAGE node embeddings, a readout, static features, one head per platform.

The model of NNLQP §6 (eqs. 3-5, Algorithm 1): ``layers`` SAGEConv layers with mean
aggregation and L2-normalised outputs embed every node; their pooling over the graph,
concatenated with the graph's static features (batch size, FLOPs, params, bytes, ...),
is the *unified graph embedding*; each platform has its own head of fully connected
layers with ReLU and dropout on the shared backbone. A head outputs the log of the
latency (in ms): positive latencies and relative errors come for free.

An optional node head (``NnlpConfig.node_head``) reads every node's embedding, its own
features and the graph's, and scores the node; a softmax over each graph's nodes is the
predicted share of the latency each node takes. Trained against the runtime's per-node
profile (``TrainSettings.node_aux_weight``), it is an auxiliary task only: the latency
heads never read it, and prediction does not compute it.

The paper pools with a sum; nnlat's default is the mean (``NnlpConfig.readout``): a
sum grows with the node count, and graphs larger than the training ones were
overpredicted many times over (docs/predictor.md, "The mean readout").
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import asdict, dataclass
from typing import Literal

import torch
from torch import nn
from torch_geometric.nn import SAGEConv, global_add_pool, global_mean_pool
from torch_geometric.utils import softmax, to_torch_csr_tensor

# How node embeddings become one vector per graph (NnlpConfig.readout).
Readout = Literal["mean", "sum", "log-sum", "mean-log-sum", "additive"]


def incoming_csr(edge_index: torch.Tensor, nodes: int) -> torch.Tensor:
    """The adjacency with a row per target node, as a CSR matrix (ones where an edge is).

    Given to a SAGEConv instead of ``edge_index``, its mean aggregation is one sparse
    product rather than a gather and a scatter (~15 % of NNLP's inference time on
    NAS-Bench-201 graphs); only on a CPU (where torch reduces sparse products by a mean)
    and without autograd, which that product lacks.

    Example:
        >>> adj = incoming_csr(torch.tensor([[0, 0, 1], [1, 2, 2]]), 3)
        >>> adj.to_dense().tolist()
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
    """
    # torch warns, once per process, that CSR tensors are in beta and that their
    # invariant checks are off: PyG builds a valid one, and users need not see either.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Sparse (CSR tensor support is in beta|invariant)")
        return to_torch_csr_tensor(edge_index.flip(0), size=(nodes, nodes))


@dataclass(frozen=True)
class NnlpConfig:
    """NNLP's hyper-parameters.

    Attributes:
        node_dim, global_dim: input widths (from the feature schema).
        platforms: number of heads.
        hidden: width of node embeddings and of the heads' first layer.
        layers: SAGEConv layers.
        dropout: dropout in the heads.
        node_features, gnn, static_features: the ablations of NNLQP Table 4. Without
            node features the heads see only the static features; without the GNN the
            node features themselves are pooled; without static features only the
            pooled node embeddings are used.
        readout: ``mean`` (the default: a head reads the mean of node embeddings),
            ``sum`` (the paper's: their sum), ``log-sum`` (the log1p of the sum),
            ``mean-log-sum`` (the mean and the log1p of the sum side by side), or
            ``additive`` (a head per node reads its embedding, its own features and the
            graph's, and outputs that node's share of the latency; the shares are
            summed). See :class:`Nnlp` for why.
        node_head: add the node head (per-node share of the latency) for the auxiliary
            per-node target; not with the ``additive`` readout.
    """

    node_dim: int
    global_dim: int
    platforms: int
    hidden: int = 128
    layers: int = 4
    dropout: float = 0.05
    node_features: bool = True
    gnn: bool = True
    static_features: bool = True
    readout: Readout = "mean"
    node_head: bool = False

    @property
    def embedding_dim(self) -> int:
        """Width of what a head reads: the unified graph embedding, or a node's vector."""
        nodes = 0 if not self.node_features else (self.hidden if self.gnn else self.node_dim)
        if self.readout == "mean-log-sum" and self.node_features:
            nodes *= 2
        if self.readout == "additive" and self.node_features and self.gnn:
            nodes += self.node_dim
        return nodes + (self.global_dim if self.static_features else 0)

    @property
    def node_vector_dim(self) -> int:
        """Width of what the node head reads: the embedding, the node's own features and
        the graph's static features."""
        nodes = self.hidden if self.node_features and self.gnn else 0
        return nodes + self.node_dim + (self.global_dim if self.static_features else 0)

    def to_dict(self) -> dict[str, object]:
        """JSON-able form, for checkpoint sidecars."""
        return asdict(self)


def latency_head(inputs: int, hidden: int, dropout: float) -> nn.Sequential:
    """A head: ``inputs`` → ``hidden`` → ``hidden / 2`` → 1, ReLU and dropout between.

    Example:
        >>> latency_head(6, 8, 0.0)(torch.ones(2, 6)).shape
        torch.Size([2, 1])
    """
    return nn.Sequential(
        nn.Linear(inputs, hidden),
        nn.ReLU(),
        nn.Dropout(dropout),
        nn.Linear(hidden, hidden // 2),
        nn.ReLU(),
        nn.Dropout(dropout),
        nn.Linear(hidden // 2, 1),
    )


class Nnlp(nn.Module):
    """The NNLP network.

    Example:
        >>> from torch_geometric.data import Batch, Data
        >>> net = Nnlp(NnlpConfig(node_dim=4, global_dim=2, platforms=3, hidden=8, layers=2))
        >>> g = Data(x=torch.ones(3, 4), edge_index=torch.tensor([[0, 1], [1, 2]]),
        ...          global_x=torch.zeros(1, 2), platform=torch.tensor([2]))
        >>> net(Batch.from_data_list([g, g])).shape
        torch.Size([2])
    """

    def __init__(self, config: NnlpConfig) -> None:
        super().__init__()
        self.config = config
        if config.embedding_dim == 0:
            raise ValueError("NNLP needs node features or static features")
        if config.readout == "additive" and not config.node_features:
            raise ValueError("an additive readout needs node features")
        if config.node_head and (config.readout == "additive" or not config.node_features):
            raise ValueError("a node head needs node features and a pooled readout")
        if config.readout in ("log-sum", "mean-log-sum") and not config.gnn:
            raise ValueError(f"a {config.readout} readout needs the GNN's non-negative embeddings")
        dims = [config.node_dim] + [config.hidden] * config.layers
        use_convs = config.node_features and config.gnn
        self.convs = (
            nn.ModuleList(
                SAGEConv(a, b, aggr="mean", normalize=True) for a, b in itertools.pairwise(dims)
            )
            if use_convs
            else nn.ModuleList()
        )
        self.heads = nn.ModuleList(self._head() for _ in range(config.platforms))
        if config.node_head:
            self.node_head = latency_head(config.node_vector_dim, config.hidden, config.dropout)

    def _head(self) -> nn.Module:
        return latency_head(self.config.embedding_dim, self.config.hidden, self.config.dropout)

    def add_head(self) -> int:
        """Append a head for a new platform (transfer); return its index."""
        self.heads.append(self._head())
        self.config = NnlpConfig(**{**self.config.to_dict(), "platforms": len(self.heads)})
        return len(self.heads) - 1

    def node_embeddings(self, batch: torch.Tensor) -> torch.Tensor:
        """Every node's GraphSAGE embedding (its own features without the GNN)."""
        x = batch.x
        edges = batch.edge_index
        if self.convs and x.device.type == "cpu" and not torch.is_grad_enabled():
            edges = incoming_csr(edges, x.shape[0])
        for conv in self.convs:
            x = torch.relu(conv(x, edges))
        return x

    def embed(self, batch: torch.Tensor, nodes: torch.Tensor | None = None) -> torch.Tensor:
        """The unified graph embedding: pooled node embeddings ⊕ static features
        (``nodes``: the node embeddings, when computed already)."""
        parts = []
        if self.config.node_features:
            nodes = self.node_embeddings(batch) if nodes is None else nodes
            parts.append(self._pool(nodes, batch.batch))
        if self.config.static_features:
            parts.append(batch.global_x)
        return torch.cat(parts, dim=1)

    def forward_with_nodes(self, batch: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-latency per graph and each node's predicted share of it (the node head's
        softmax over the nodes of its graph); needs ``node_head``.

        Example:
            >>> from torch_geometric.data import Batch, Data
            >>> net = Nnlp(NnlpConfig(node_dim=4, global_dim=2, platforms=1, hidden=8,
            ...                       layers=2, node_head=True))
            >>> g = Data(x=torch.ones(3, 4), edge_index=torch.tensor([[0, 1], [1, 2]]),
            ...          global_x=torch.zeros(1, 2), platform=torch.tensor([0]))
            >>> latency, shares = net.forward_with_nodes(Batch.from_data_list([g, g]))
            >>> latency.shape, round(float(shares.sum()), 4)
            (torch.Size([2]), 2.0)
        """
        if not self.config.node_head:
            raise ValueError("this NNLP has no node head (NnlpConfig.node_head)")
        nodes = self.node_embeddings(batch)
        latency = self._through_heads(self.embed(batch, nodes), batch.platform)
        parts = [nodes, batch.x] if self.convs else [batch.x]
        if self.config.static_features:
            parts.append(batch.global_x[batch.batch])
        scores = self.node_head(torch.cat(parts, dim=1)).squeeze(-1)
        return latency, softmax(scores, batch.batch)

    def _pool(self, nodes: torch.Tensor, graph_of_node: torch.Tensor) -> torch.Tensor:
        # The heads read log-scaled static features and output log-latency, but a sum of
        # L2-normalised embeddings grows with the node count: a graph of many cheap nodes
        # looks like a large network. ``log-sum`` puts the sum on the static features'
        # log scale (embeddings are non-negative after ReLU); ``mean`` keeps only the
        # graph's composition and leaves its size to the static features.
        # ``mean-log-sum`` gives both: how much of each kind of node, and how many.
        readout = self.config.readout
        if readout == "mean":
            return global_mean_pool(nodes, graph_of_node)
        summed = global_add_pool(nodes, graph_of_node)
        if readout == "sum":
            return summed
        if readout == "log-sum":
            return torch.log1p(summed)
        return torch.cat([global_mean_pool(nodes, graph_of_node), torch.log1p(summed)], dim=1)

    def forward(self, batch: torch.Tensor) -> torch.Tensor:
        """Log-latency per graph of ``batch`` on the platform in ``batch.platform``."""
        if self.config.readout == "additive":
            return self._additive(batch)
        return self._through_heads(self.embed(batch), batch.platform)

    def _through_heads(self, inputs: torch.Tensor, platform: torch.Tensor) -> torch.Tensor:
        """Each row of ``inputs`` through the head of its platform (``platform[row]``)."""
        out = torch.empty(inputs.shape[0], device=inputs.device)
        for index in torch.unique(platform).tolist():
            rows = platform == index
            out[rows] = self.heads[index](inputs[rows]).squeeze(-1)
        return out

    def _additive(self, batch: torch.Tensor) -> torch.Tensor:
        # On one thread a network's latency is close to the sum of its kernels' (see
        # reports/kernel_additivity/README.md), so each node predicts its own share: a large
        # graph of small convolutions is then not mistaken for a large network, which
        # an MLP on the summed L2-normalised embeddings cannot tell apart.
        parts = [self.node_embeddings(batch)]
        if self.config.gnn:
            parts.append(batch.x)
        if self.config.static_features:
            parts.append(batch.global_x[batch.batch])
        nodes = torch.cat(parts, dim=1)
        shares = nn.functional.softplus(self._through_heads(nodes, batch.platform[batch.batch]))
        total = global_add_pool(shares.unsqueeze(-1), batch.batch, size=batch.num_graphs)
        return torch.log(total.squeeze(-1) + 1e-6)
