"""BRP-NAS: a GCN whose readout is a global node, static features, one head per platform.

The latency predictor of BRP-NAS (Dudziak et al., NeurIPS 2020) as re-implemented and
specified by Yue, "Latency Prediction for Convolutional Neural Networks" (2021), §3.2
and §4.1: a *global node* joined to every node of the graph (both directions), so that
after one graph convolution it has seen the whole graph; ``layers`` blocks of graph
convolution → LayerNorm → ReLU → Dropout, over the graph's edges taken both ways (a
node hears from its inputs and from its consumers); the global node's final embedding is the graph
embedding; a fully connected layer regresses the latency from it.

The graph convolution is Yue's equation (2), ``H' = W_self H + A H W_agg`` with the raw
(unnormalised) adjacency: PyG's ``GraphConv``, which *sums* the neighbours. PyG's
``GCNConv`` (symmetric degree normalisation, one shared weight) was used first and
barely learns the task: trained on 900 LatBench cell graphs its errors stay close to
those of a constant prediction, as dividing by degrees blurs the operator counts that a
cell's latency mostly depends on.

What lives here:

* :class:`BrpnasConfig`: the hyper-parameters (saved in checkpoint sidecars).
* :func:`add_global_nodes`: appends one global node per graph of a batch, vectorised.
* :class:`BrpnasGcn`: the network, registered as ``"brpnas"`` in
  :data:`nnlat.predictor.predictor.NETWORKS`.

Like :class:`~nnlat.predictor.networks.nnlp.Nnlp` (and unlike the paper) the readout is
concatenated with the graph's static features (``global_x``: batch size, FLOPs, ...),
every platform has its own head, and a head outputs the log of the latency (ms). The
global node is added inside :meth:`BrpnasGcn.forward`, so the same
:func:`~nnlat.predictor.predictor.to_data` graphs feed both networks.

Training: the paper's criterion is an L1 loss (it reports that MAPE did about as well);
we train with ``loss="mape"`` (an L1 loss on the relative error), which did slightly
better than ``loss="l1"`` on milliseconds in a trial on LatBench cells. Its other
settings map to
``TrainSettings(epochs=250, patience=35, batch_size=10, lr=8e-4, weight_decay=5e-4,
optimiser="adamw", lr_plateau=10)``.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Literal

import torch
from torch import nn
from torch_geometric.data import Data
from torch_geometric.nn import GraphConv
from torch_geometric.utils import to_undirected


@dataclass(frozen=True)
class BrpnasConfig:
    """BRP-NAS's hyper-parameters.

    ``layers=4``, ``hidden=600``, ``dropout=0.002`` and ``head_hidden=0`` (a single fully
    connected output layer) are the paper's (§4.1: "four GC-Norm-ReLU-Dropout operations
    and a fully-connected layer as the output", 600 hidden units, layer normalisation,
    dropout ratio 0.002).

    Attributes:
        node_dim, global_dim: input widths (from the feature schema).
        platforms: number of heads.
        hidden: width of every graph convolution (and of the node embeddings).
        layers: GraphConv → LayerNorm → ReLU → Dropout blocks.
        dropout: dropout ratio after each block (and in the heads' hidden layer).
        head_hidden: 0 for the paper's single linear layer per head; otherwise the width
            of one hidden layer (Linear → ReLU → Dropout → Linear).
        static_features: concatenate the graph's static features to the readout (ours);
            False reads the global node alone, as the paper does.
        edges: ``undirected`` (default) convolves over each edge both ways, so a node
            sees what it reads and what reads it; ``directed`` only along the data flow.
            On LatBench's desktop-CPU cells (900 training networks) undirected edges
            raised Acc(10 %) from 91.5 % to 94.7 % and cut MAPE from 4.81 % to 3.58 %
            (``gcn-directed`` against ``gcn`` in reports/brpnas_nb201/cells/README.md).
        adjacency: ``identity`` drops every edge (each node sees only itself, the global
            node included): the ablation of Yue (2021), Table 4.
        node_features: ``random`` replaces each node's features by a fixed random vector
            chosen by the node's position in its graph, so the operator types are gone
            but the structure is kept: the other ablation of that table.

    Example:
        >>> BrpnasConfig(node_dim=4, global_dim=2, platforms=1).to_dict()["hidden"]
        600
    """

    node_dim: int
    global_dim: int
    platforms: int
    hidden: int = 600
    layers: int = 4
    dropout: float = 0.002
    head_hidden: int = 0
    static_features: bool = True
    edges: Literal["undirected", "directed"] = "undirected"
    adjacency: Literal["graph", "identity"] = "graph"
    node_features: Literal["graph", "random"] = "graph"

    def to_dict(self) -> dict[str, object]:
        """JSON-able form, for checkpoint sidecars.

        Example:
            >>> c = BrpnasConfig(node_dim=4, global_dim=2, platforms=1, hidden=8)
            >>> BrpnasConfig(**c.to_dict()) == c
            True
        """
        return asdict(self)


# The random-features ablation: positions beyond this many nodes reuse the table.
RANDOM_FEATURE_POSITIONS = 4096
RANDOM_FEATURES_SEED = 0


def _positions(graph_of: torch.Tensor) -> torch.Tensor:
    """Each node's index within its own graph (nodes of a graph are contiguous in PyG)."""
    counts = torch.bincount(graph_of)
    starts = torch.cumsum(counts, 0) - counts
    return torch.arange(graph_of.shape[0], device=graph_of.device) - starts[graph_of]


def add_global_nodes(
    x: torch.Tensor,
    edge_index: torch.Tensor,
    batch: torch.Tensor,
    global_features: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Append one global node per graph, joined to each node of its graph both ways.

    Global node ``g`` (graph ``g`` of the batch) gets index ``num_nodes + g`` and the
    features ``global_features[g]``; the new edges are node → global and global → node.
    No self-loops are added (the convolution's root weight plays their part).

    Args:
        x: node features, nodes × features.
        edge_index: 2 × edges, into ``x``.
        batch: the graph of each node (sorted or not), int64 of length nodes.
        global_features: graphs × features, the global nodes' features.

    Returns:
        ``(x, edge_index, global_index)``: the features and edges with the global nodes,
        and the index of each graph's global node.

    Example:
        >>> x = torch.ones(3, 2)
        >>> x2, e2, g = add_global_nodes(x, torch.tensor([[0], [1]]), torch.tensor([0, 0, 1]),
        ...                              torch.zeros(2, 2))
        >>> x2.shape, g.tolist()
        (torch.Size([5, 2]), [3, 4])
        >>> e2.tolist()
        [[0, 0, 1, 2, 3, 3, 4], [1, 3, 3, 4, 0, 1, 2]]
    """
    num_nodes = x.shape[0]
    global_index = num_nodes + torch.arange(global_features.shape[0], device=x.device)
    nodes = torch.arange(num_nodes, device=x.device)
    hubs = num_nodes + batch.to(x.device)
    edges = torch.cat([edge_index, torch.stack([nodes, hubs]), torch.stack([hubs, nodes])], dim=1)
    return torch.cat([x, global_features.to(x.dtype)], dim=0), edges, global_index


class BrpnasGcn(nn.Module):
    """The BRP-NAS GCN latency predictor (see the module docstring).

    The global node's input features are a learned vector (initialised to zeros): the
    equivalent of BRP-NAS's one-hot "global" operator type, which the feature schema
    has no column for. At initialisation it behaves as all-zero features (the first
    layer's global node then only aggregates its neighbours); training can make it a
    marker that tells the convolutions which node is the global one.

    Attributes:
        config: the :class:`BrpnasConfig` (``platforms`` follows :meth:`add_head`).

    Example:
        >>> from torch_geometric.data import Batch, Data
        >>> net = BrpnasGcn(BrpnasConfig(node_dim=4, global_dim=2, platforms=3, hidden=8))
        >>> g = Data(x=torch.ones(3, 4), edge_index=torch.tensor([[0, 1], [1, 2]]),
        ...          global_x=torch.zeros(1, 2), platform=torch.tensor([2]))
        >>> net.eval()(Batch.from_data_list([g, g])).shape
        torch.Size([2])
    """

    def __init__(self, config: BrpnasConfig) -> None:
        super().__init__()
        self.config = config
        self.global_embedding = nn.Parameter(torch.zeros(config.node_dim))
        dims = [config.node_dim] + [config.hidden] * config.layers
        self.convs = nn.ModuleList(GraphConv(a, b) for a, b in itertools.pairwise(dims))
        self.norms = nn.ModuleList(nn.LayerNorm(config.hidden) for _ in range(config.layers))
        self.dropout = nn.Dropout(config.dropout)
        self.heads = nn.ModuleList(self._head() for _ in range(config.platforms))
        if config.node_features == "random":  # fixed, saved with the weights, not trained
            noise = torch.Generator().manual_seed(RANDOM_FEATURES_SEED)
            table = torch.randn(RANDOM_FEATURE_POSITIONS, config.node_dim, generator=noise)
            self.register_buffer("random_features", table)

    def _head(self) -> nn.Module:
        c = self.config
        width = c.hidden + (c.global_dim if c.static_features else 0)
        if c.head_hidden <= 0:
            return nn.Linear(width, 1)
        return nn.Sequential(
            nn.Linear(width, c.head_hidden),
            nn.ReLU(),
            nn.Dropout(c.dropout),
            nn.Linear(c.head_hidden, 1),
        )

    def add_head(self) -> int:
        """Append a head for a new platform (transfer); return its index.

        Example:
            >>> net = BrpnasGcn(BrpnasConfig(node_dim=4, global_dim=2, platforms=1, hidden=8))
            >>> net.add_head(), net.config.platforms
            (1, 2)
        """
        self.heads.append(self._head().to(self.global_embedding.device))
        self.config = BrpnasConfig(**{**self.config.to_dict(), "platforms": len(self.heads)})
        return len(self.heads) - 1

    def embed(self, batch: Data) -> torch.Tensor:
        """The graph embedding: the global node's final embedding ⊕ static features.

        Args:
            batch: a PyG ``Batch`` (or a single ``Data``) with ``x``, ``edge_index``,
                ``global_x`` (graphs × ``global_dim``) and, for a ``Batch``, ``batch``.

        Returns:
            graphs × (``hidden`` + ``global_dim``).
        """
        x, global_x = batch.x, batch.global_x
        graph_of = batch.batch
        if graph_of is None:
            graph_of = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        if self.config.node_features == "random":
            x = self.random_features[_positions(graph_of) % RANDOM_FEATURE_POSITIONS]
        hubs = self.global_embedding.expand(global_x.shape[0], -1)
        edge_index = batch.edge_index
        if self.config.edges == "undirected":
            edge_index = to_undirected(edge_index, num_nodes=x.shape[0])
        h, edge_index, global_index = add_global_nodes(x, edge_index, graph_of, hubs)
        if self.config.adjacency == "identity":
            edge_index = edge_index[:, :0]  # each node's root weight is all that is left
        for conv, norm in zip(self.convs, self.norms, strict=True):
            h = self.dropout(torch.relu(norm(conv(h, edge_index))))
        if not self.config.static_features:
            return h[global_index]
        return torch.cat([h[global_index], global_x], dim=1)

    def forward(self, batch: Data) -> torch.Tensor:
        """Log-latency per graph of ``batch`` on the platform in ``batch.platform``."""
        embedding = self.embed(batch)
        out = torch.empty(embedding.shape[0], device=embedding.device, dtype=embedding.dtype)
        for index in torch.unique(batch.platform).tolist():
            rows = batch.platform == index
            out[rows] = self.heads[index](embedding[rows]).squeeze(-1)
        return out
