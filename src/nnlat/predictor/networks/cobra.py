"""The COBRA GCN: frozen snippet embeddings aggregated over the call graph.

COBRA's third stage (paper §3, equation (1)): ``X⁽ˡ⁾ = σ(A X⁽ˡ⁻¹⁾ W⁽ˡ⁾)`` over the call
graph's adjacency ``A``, node features ``X⁽⁰⁾`` the encoder's snippet embeddings (frozen),
then a readout and a linear layer; trained with MAPE.

The graph convolution is PyG's ``GraphConv`` (``W_self h + W_agg Σ neighbours``), for the
reason given in :mod:`nnlat.predictor.networks.brpnas`: a degree-normalised ``GCNConv``
blurs what a node is; edges are taken both ways (a layer hears what it reads and what
reads it). Two readouts:

* ``mean``, the paper's: global average pooling of the last layer, then a linear layer
  giving the network's log-latency;
* ``sum`` (default): a linear layer gives each node a log-latency, and the network's is
  ``log Σ exp`` of them: a latency that adds up over the layers, each layer's share
  corrected by its neighbourhood. A network's latency grows with its number of layers,
  which a mean over nodes cannot see.

Like every nnlat graph network it outputs log(ms), so it trains with
:func:`nnlat.predictor.training.train_network` (``loss="mape"``).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Literal

import torch
from torch import nn
from torch_geometric.data import Data
from torch_geometric.nn import GraphConv, global_mean_pool
from torch_geometric.utils import scatter, to_undirected


@dataclass(frozen=True)
class CobraGcnConfig:
    """The GCN's hyper-parameters (the paper's Table 5: 4 layers, 395 hidden, dropout 2e-4).

    Attributes:
        node_dim: the width of the node features (the encoder's embedding, plus one for
            its predicted log-latency).
        hidden: the width of every graph convolution.
        layers: GraphConv → LayerNorm → ReLU → Dropout blocks.
        dropout: the dropout ratio.
        readout: ``sum`` or ``mean`` (module docstring).

    Example:
        >>> CobraGcnConfig(node_dim=8).to_dict()["readout"]
        'sum'
    """

    node_dim: int
    hidden: int = 256
    layers: int = 4
    dropout: float = 0.0002
    readout: Literal["sum", "mean"] = "sum"

    def to_dict(self) -> dict[str, object]:
        """JSON-able form, for the checkpoint sidecar."""
        return asdict(self)


class CobraGcn(nn.Module):
    """The COBRA GCN (module docstring).

    Example:
        >>> from torch_geometric.data import Batch
        >>> net = CobraGcn(CobraGcnConfig(node_dim=4, hidden=8))
        >>> g = Data(x=torch.ones(3, 4), edge_index=torch.tensor([[0, 1], [1, 2]]))
        >>> net.eval()(Batch.from_data_list([g, g])).shape
        torch.Size([2])
    """

    def __init__(self, config: CobraGcnConfig) -> None:
        super().__init__()
        self.config = config
        dims = [config.node_dim] + [config.hidden] * config.layers
        self.convs = nn.ModuleList(GraphConv(a, b) for a, b in itertools.pairwise(dims))
        self.norms = nn.ModuleList(nn.LayerNorm(config.hidden) for _ in range(config.layers))
        self.dropout = nn.Dropout(config.dropout)
        self.out = nn.Linear(config.hidden, 1)

    def forward(self, batch: Data) -> torch.Tensor:
        """log(ms) per graph of ``batch`` (a PyG ``Batch`` or one ``Data``)."""
        x = batch.x
        graph_of = getattr(batch, "batch", None)
        if graph_of is None:
            graph_of = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        edges = to_undirected(batch.edge_index, num_nodes=x.shape[0])
        h = x
        for conv, norm in zip(self.convs, self.norms, strict=True):
            h = self.dropout(torch.relu(norm(conv(h, edges))))
        graphs = int(graph_of.max()) + 1 if graph_of.numel() else 0
        if self.config.readout == "mean":
            return self.out(global_mean_pool(h, graph_of, graphs)).squeeze(-1)
        node_log = self.out(h).squeeze(-1)
        top = scatter(node_log, graph_of, 0, dim_size=graphs, reduce="max")
        total = scatter(torch.exp(node_log - top[graph_of]), graph_of, 0, dim_size=graphs)
        return top + torch.log(total)
