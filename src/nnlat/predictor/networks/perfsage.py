"""PerfSAGE: GraphSAGE over arbitrary DNN graphs, categorical feature encoding, max readout.

The network of Chai et al., "PerfSAGE: Generalized Inference Performance Predictor for
Arbitrary Deep Learning Models on Edge Devices" (2023), §4.1-4.2:

1. **Input layer** (eq. 1): a node's features, its output dimensions (both are
   :data:`~nnlat.features.raw.NODE_COLUMNS`, scaled) and a trainable embedding of its
   operator type ``E_cat(c_i)`` are concatenated and mapped to the hidden width,
   ``h⁰_i = relu(W_{c_i} · (F_node ‖ F_edge ‖ E_cat(c_i)) + b_{c_i})``. With
   *categorical feature encoding* (CFE, ``cfe=True``) the weight and bias are chosen by
   the operator type (PyG's ``HeteroLinear``, one matrix per type); without it one
   ``Linear`` serves every type, which still sees the type through ``E_cat``.
2. **Graph layers** (eq. 2): ``layers`` (8 in the paper) GraphSAGE layers with a *sum*
   over the directly connected neighbours, ``h^k_i = relu(W^k (h^{k-1}_i ‖ Σ_j
   h^{k-1}_j) + b^k)``: PyG's ``SAGEConv(aggr="sum")``, whose two linear maps are that
   one matrix split in halves. Neighbours are taken both ways (a node's inputs and its
   consumers), as the paper's Figure 2 draws them.
3. **Readout**: the maximum of the node embeddings over the graph (the paper's), or
   their sum, or both side by side (``readout``), then per head four fully connected
   layers of width 1024 (the paper's) down to one output: the log of the head's target
   (see :class:`~nnlat.predictor.predictor.Predictor`).

Like nnlat's other networks (and unlike the paper) the graph's static features
(``global_x``: FLOPs, parameters, bytes, node count...) may join the readout
(``static_features``, on by default: a max readout alone cannot count operators).
Each head is one (platform, target) of the predictor; all read one embedding.

The operator type of a node is the index of its one-hot slot in ``x`` (the first
``node_dim - len(NODE_COLUMNS)`` columns, the feature schema's vocabulary).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import torch
from torch import nn
from torch_geometric.data import Data
from torch_geometric.nn import HeteroLinear, SAGEConv, global_add_pool, global_max_pool
from torch_geometric.utils import to_undirected

from nnlat.features.raw import NODE_COLUMNS

Readout = Literal["max", "sum", "max-sum"]


@dataclass(frozen=True)
class PerfSageConfig:
    """PerfSAGE's hyper-parameters.

    ``layers=8``, ``head_width=1024`` and ``head_layers=4`` are the paper's; it does not
    give the hidden width or the category embedding's, chosen here.

    Attributes:
        node_dim, global_dim: input widths (from the feature schema).
        platforms: number of heads ((platform, target) pairs).
        hidden: width of the node embeddings.
        layers: GraphSAGE layers after the input layer.
        category_dim: width of the operator-type embedding ``E_cat``.
        cfe: categorical feature encoding: the input layer's weights chosen by type.
        readout: ``max`` (the paper's), ``sum`` or ``max-sum`` (both, concatenated).
        static_features: concatenate the graph's static features to the readout.
        norm: a LayerNorm after each GraphSAGE layer (before its ReLU). Not in the paper;
            without it the sums of eight layers grow so large on a ViT's graphs (hundreds
            of nodes) that the first step's predicted latencies reach e^11 and the second
            step's overflow: every generalised run of ``nnlat eval perfsage`` on the four
            spaces went to NaN in its first epoch.
        head_width: width of a head's hidden layers.
        head_layers: fully connected layers per head, the output layer included.
        dropout: dropout between a head's layers.

    Example:
        >>> c = PerfSageConfig(node_dim=30, global_dim=7, platforms=2)
        >>> PerfSageConfig(**c.to_dict()) == c, c.ops
        (True, 7)
    """

    node_dim: int
    global_dim: int
    platforms: int
    hidden: int = 256
    layers: int = 8
    category_dim: int = 16
    cfe: bool = True
    readout: Readout = "max"
    static_features: bool = True
    norm: bool = False
    head_width: int = 1024
    head_layers: int = 4
    dropout: float = 0.0

    @property
    def ops(self) -> int:
        """Operator types: the one-hot columns of ``x`` (vocabulary and ``<other>``)."""
        return self.node_dim - len(NODE_COLUMNS)

    @property
    def embedding_dim(self) -> int:
        """Width of the graph embedding every head reads."""
        pooled = self.hidden * (2 if self.readout == "max-sum" else 1)
        return pooled + (self.global_dim if self.static_features else 0)

    def to_dict(self) -> dict[str, object]:
        """JSON-able form, for checkpoint sidecars."""
        return asdict(self)


class PerfSage(nn.Module):
    """The PerfSAGE network (see the module docstring).

    Attributes:
        config: the :class:`PerfSageConfig` (``platforms`` follows :meth:`add_head`).

    Example:
        >>> from torch_geometric.data import Batch
        >>> config = PerfSageConfig(node_dim=len(NODE_COLUMNS) + 3, global_dim=2,
        ...                         platforms=2, hidden=8, head_width=16)
        >>> x = torch.zeros(3, config.node_dim)
        >>> x[:, :3] = torch.eye(3)  # three operator types
        >>> g = Data(x=x, edge_index=torch.tensor([[0, 1], [1, 2]]),
        ...          global_x=torch.zeros(1, 2), platform=torch.tensor([1]))
        >>> net = PerfSage(config).eval()
        >>> net(Batch.from_data_list([g, g])).shape, net.embed(g).shape
        (torch.Size([2]), torch.Size([1, 10]))
    """

    def __init__(self, config: PerfSageConfig) -> None:
        super().__init__()
        self.config = config
        values = len(NODE_COLUMNS)
        self.categories = nn.Embedding(config.ops, config.category_dim)
        width = values + config.category_dim
        self.input: nn.Module = (
            HeteroLinear(width, config.hidden, config.ops)
            if config.cfe
            else nn.Linear(width, config.hidden)
        )
        self.convs = nn.ModuleList(
            SAGEConv(config.hidden, config.hidden, aggr="sum") for _ in range(config.layers)
        )
        self.norms = nn.ModuleList(
            nn.LayerNorm(config.hidden) for _ in range(config.layers if config.norm else 0)
        )
        self.heads = nn.ModuleList(self._head() for _ in range(config.platforms))

    def _head(self) -> nn.Sequential:
        c = self.config
        layers: list[nn.Module] = []
        width = c.embedding_dim
        for _ in range(c.head_layers - 1):
            layers += [nn.Linear(width, c.head_width), nn.ReLU(), nn.Dropout(c.dropout)]
            width = c.head_width
        layers.append(nn.Linear(width, 1))
        return nn.Sequential(*layers)

    def add_head(self) -> int:
        """Append a head (a new platform or target); return its index.

        Example:
            >>> net = PerfSage(PerfSageConfig(node_dim=len(NODE_COLUMNS) + 2, global_dim=2,
            ...                               platforms=1, hidden=8, head_width=8))
            >>> net.add_head(), net.config.platforms
            (1, 2)
        """
        self.heads.append(self._head().to(self.categories.weight.device))
        self.config = PerfSageConfig(**{**self.config.to_dict(), "platforms": len(self.heads)})
        return len(self.heads) - 1

    def embed(self, batch: Data) -> torch.Tensor:
        """The graph embedding: pooled node embeddings (⊕ static features).

        Args:
            batch: a PyG ``Batch`` (or one ``Data``) with ``x``, ``edge_index`` and
                ``global_x`` (graphs × ``global_dim``).

        Returns:
            graphs × :attr:`PerfSageConfig.embedding_dim`.
        """
        c = self.config
        x = batch.x
        graph_of = batch.batch
        if graph_of is None:
            graph_of = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        op = x[:, : c.ops].argmax(dim=1)
        inputs = torch.cat([x[:, c.ops :], self.categories(op)], dim=1)
        h = torch.relu(self.input(inputs, op) if c.cfe else self.input(inputs))
        edge_index = to_undirected(batch.edge_index, num_nodes=x.shape[0])
        for index, conv in enumerate(self.convs):
            h = conv(h, edge_index)
            h = torch.relu(self.norms[index](h) if c.norm else h)
        graphs = batch.global_x.shape[0]
        pooled = []
        if c.readout in ("max", "max-sum"):
            pooled.append(global_max_pool(h, graph_of, size=graphs))
        if c.readout in ("sum", "max-sum"):
            pooled.append(global_add_pool(h, graph_of, size=graphs))
        if c.static_features:
            pooled.append(batch.global_x)
        return torch.cat(pooled, dim=1)

    def forward(self, batch: Data) -> torch.Tensor:
        """Log-target per graph of ``batch`` from the head in ``batch.platform``."""
        embedding = self.embed(batch)
        out = torch.empty(embedding.shape[0], device=embedding.device, dtype=embedding.dtype)
        for index in torch.unique(batch.platform).tolist():
            rows = batch.platform == index
            out[rows] = self.heads[index](embedding[rows]).squeeze(-1)
        return out
