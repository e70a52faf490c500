"""NAS-Bench-201: the cell search space of Dong & Yang (ICLR 2020) on its CIFAR skeleton.

The skeleton: stem Conv3x3(3→C)+BN; three stages of ``cells_per_stage`` identical cells
with C, 2C and 4C channels, separated by two residual reduction blocks (a ResNet basic
block with stride 2); then BN+ReLU, global average pooling and a Linear classifier. With
C=16, 5 cells per stage and 10 classes this is the network whose latencies HELP,
HW-NAS-Bench and BRP-NAS published (``data/published/nas-bench-201``).

A cell is a DAG of 4 nodes: node 0 is the cell input and node j (1..3) is the sum, over
i < j, of ``op_{j,i}(node i)``. The operation on each of the 6 edges is one of
:data:`OPS`, so the space has 5**6 = 15,625 architectures, written as NAS-Bench-201
strings such as ``|nor_conv_3x3~0|+|nor_conv_3x3~0|avg_pool_3x3~1|+|...|``.

Disconnected architectures: when every edge into a node is ``none`` the node is all
zeros. NAS-Bench-201 computes such a node as a multiplication of its input by zero, and
so do we (``cell input * 0``): the exported graph stays connected and keeps one cheap
``Mul`` where the published network had its zero operations. In 341 of the 15,625
architectures the cell output itself is such a node (or depends only on such nodes), so
the network's output does not depend on the image; they still build and export.
"""

from __future__ import annotations

import random

import torch
from torch import nn

from nnlat.zoo.family import Config, Family

# The edge operations, in NAS-Bench-201's order.
OPS = ("none", "skip_connect", "nor_conv_1x1", "nor_conv_3x3", "avg_pool_3x3")
NUM_NODES = 4
ALL_CONV3X3 = (
    "|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|"
    "+|nor_conv_3x3~0|nor_conv_3x3~1|nor_conv_3x3~2|"
)

Edge = tuple[str, int]


def parse_arch(arch_str: str) -> list[list[Edge]]:
    """Parse a NAS-Bench-201 architecture string.

    Args:
        arch_str: e.g. ``"|nor_conv_3x3~0|+|skip_connect~0|none~1|+|...~0|...~1|...~2|"``:
            three ``+``-separated groups, group j listing the j edges into node j as
            ``op~i`` with i = 0..j-1 in order.

    Returns:
        One list per node 1..3 of ``(op, input_node)`` pairs.

    Raises:
        ValueError: the string is not of that form or names an unknown operation.

    Example:
        >>> parse_arch("|none~0|+|skip_connect~0|none~1|+|none~0|none~1|none~2|")[1]
        [('skip_connect', 0), ('none', 1)]
    """
    groups = arch_str.split("+")
    if len(groups) != NUM_NODES - 1:
        raise ValueError(
            f"NAS-Bench-201 arch {arch_str!r}: expected {NUM_NODES - 1} '+'-separated "
            f"node groups, got {len(groups)}"
        )
    nodes: list[list[Edge]] = []
    for node, group in enumerate(groups, start=1):
        if len(group) < 2 or group[0] != "|" or group[-1] != "|":
            raise ValueError(
                f"NAS-Bench-201 arch {arch_str!r}: node group {group!r} must start and end with '|'"
            )
        edges = group[1:-1].split("|")
        if len(edges) != node:
            raise ValueError(
                f"NAS-Bench-201 arch {arch_str!r}: node {node} needs {node} edges, "
                f"got {len(edges)} in {group!r}"
            )
        parsed: list[Edge] = []
        for expected_input, edge in enumerate(edges):
            op, sep, source = edge.partition("~")
            if not sep or op not in OPS or source != str(expected_input):
                raise ValueError(
                    f"NAS-Bench-201 arch {arch_str!r}: edge {edge!r} of node {node} is not "
                    f"'op~{expected_input}' with op in {list(OPS)}"
                )
            parsed.append((op, expected_input))
        nodes.append(parsed)
    return nodes


def arch_string(nodes: list[list[Edge]]) -> str:
    """Write parsed nodes back as a NAS-Bench-201 string (the inverse of :func:`parse_arch`)."""
    return "+".join("|" + "|".join(f"{op}~{i}" for op, i in edges) + "|" for edges in nodes)


def arch_config(arch_str: str) -> Config:
    """The configuration of ``arch_str`` on the standard CIFAR-10 skeleton.

    Args:
        arch_str: a NAS-Bench-201 architecture string.

    Returns:
        ``{"arch", "channels": 16, "cells_per_stage": 5, "resolution": 32, "num_classes": 10}``.

    Raises:
        ValueError: ``arch_str`` is malformed.
    """
    parse_arch(arch_str)
    return {
        "arch": arch_str,
        "channels": 16,
        "cells_per_stage": 5,
        "resolution": 32,
        "num_classes": 10,
    }


class ReLUConvBN(nn.Sequential):
    """ReLU → Conv (no bias) → BN, the convolution of NAS-Bench-201 cells and blocks."""

    def __init__(self, c_in: int, c_out: int, kernel: int, stride: int = 1) -> None:
        super().__init__(
            nn.ReLU(),
            nn.Conv2d(c_in, c_out, kernel, stride, padding=kernel // 2, bias=False),
            nn.BatchNorm2d(c_out),
        )


def _edge_op(op: str, channels: int) -> nn.Module:
    if op == "skip_connect":
        return nn.Identity()
    if op == "nor_conv_1x1":
        return ReLUConvBN(channels, channels, 1)
    if op == "nor_conv_3x3":
        return ReLUConvBN(channels, channels, 3)
    if op == "avg_pool_3x3":
        return nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)
    raise ValueError(f"no module for NAS-Bench-201 op {op!r}")


class Cell(nn.Module):
    """One NAS-Bench-201 cell; a ``none`` edge has no module at all."""

    def __init__(self, nodes: list[list[Edge]], channels: int) -> None:
        super().__init__()
        # Keyed "j_i" for the edge from node i into node j.
        self.edges = nn.ModuleDict(
            {
                f"{j}_{i}": _edge_op(op, channels)
                for j, node in enumerate(nodes, start=1)
                for op, i in node
                if op != "none"
            }
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Evaluate nodes 1..3 in order and return the last one."""
        nodes = [x]
        for j in range(1, NUM_NODES):
            terms = [self.edges[f"{j}_{i}"](nodes[i]) for i in range(j) if f"{j}_{i}" in self.edges]
            if terms:
                nodes.append(sum(terms[1:], start=terms[0]))
            else:
                # Every edge into node j is `none`: the node is zeros. Multiplying the cell
                # input by zero (as NAS-Bench-201's Zero op does) keeps the graph connected.
                nodes.append(x * 0.0)
        return nodes[-1]


class ResidualReduction(nn.Module):
    """The stride-2 ResNet basic block between stages, as NAS-Bench-201 defines it."""

    def __init__(self, c_in: int, c_out: int) -> None:
        super().__init__()
        self.conv_a = ReLUConvBN(c_in, c_out, 3, stride=2)
        self.conv_b = ReLUConvBN(c_out, c_out, 3)
        self.shortcut = nn.Sequential(
            nn.AvgPool2d(2, stride=2), nn.Conv2d(c_in, c_out, 1, bias=False)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """conv_b(conv_a(x)) + shortcut(x)."""
        return self.conv_b(self.conv_a(x)) + self.shortcut(x)


class NASBench201Network(nn.Module):
    """The NAS-Bench-201 CIFAR network of one cell architecture."""

    def __init__(
        self, nodes: list[list[Edge]], channels: int, cells_per_stage: int, num_classes: int
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = [
            nn.Conv2d(3, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
        ]
        width = channels
        for stage in range(3):
            if stage:
                layers.append(ResidualReduction(width, width * 2))
                width *= 2
            layers.extend(Cell(nodes, width) for _ in range(cells_per_stage))
        layers += [nn.BatchNorm2d(width), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(width, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits of shape (batch, num_classes)."""
        return self.classifier(self.features(x))


def build(config: Config) -> nn.Module:
    """Build the network of a configuration (see :func:`arch_config`)."""
    return NASBench201Network(
        parse_arch(config["arch"]),
        channels=config["channels"],
        cells_per_stage=config["cells_per_stage"],
        num_classes=config["num_classes"],
    )


def sample(rng: random.Random) -> Config:
    """A uniformly random one of the 15,625 cells on the standard skeleton."""
    nodes = [[(rng.choice(OPS), i) for i in range(j)] for j in range(1, NUM_NODES)]
    return arch_config(arch_string(nodes))


FAMILY = Family(
    name="nasbench201",
    summary="NAS-Bench-201 cell space on its CIFAR skeleton (15,625 architectures)",
    sample=sample,
    build=build,
    canonical={"nb201_all_conv3x3": arch_config(ALL_CONV3X3)},
)
