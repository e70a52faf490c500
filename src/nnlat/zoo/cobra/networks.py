"""Random ResNet-like networks (COBRA Appendix A.2) written out as PyTorch source files.

The architectures are :mod:`nnlat.zoo.randdag`'s: an upper-triangular adjacency with
edge probability p = 0.4, pruned to the layers on a path from input to output, each layer
one of Table 6's operations (Conv+BN+ReLU, SepConv+BN+ReLU with channels in
{32, ..., 512}, kernel in {3, 5, 7}, stride in {1, 2, 4}; 2x2 average or max pooling),
several inputs added after 1x1 Conv+BN+ReLU adapters bring them to a common shape.

:func:`network_source` writes one configuration as a standalone, readable ``model.py``
(one ``nn.Module`` class ``Net``, every layer spelled out); the family builds the network
*from that text* (:func:`nnlat.code.load_source_module`), so what is measured is what the
interpreter reads. It computes the same graph as :class:`nnlat.zoo.randdag.RandomDAG`
(same ONNX, same graph hash). De-duplication by graph hash is the campaign's job
(:mod:`nnlat.datasets.cobra`).
"""

from __future__ import annotations

import torch
from torch import nn

from nnlat.code.graph import CodeGraph
from nnlat.code.interpret import interpret_module
from nnlat.code.loader import load_source_module
from nnlat.zoo.cobra.layers import not_sampled, output_on_meta
from nnlat.zoo.family import Config, Family
from nnlat.zoo.randdag import POOL_OPS, _merge, _shapes, sample, validate

CLASS_NAME = "Net"
HEADER = '''"""A random ResNet-like network (COBRA, Appendix A.2), by nnlat.zoo.cobra.networks.

Input: a (1, 3, {resolution}, {resolution}) image; output: {num_classes} logits.
"""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
'''


def _conv_bn_relu(c_in: int, c_out: int, kernel: int, stride: int) -> str:
    padding = (kernel - 1) // 2
    conv = f"nn.Conv2d({c_in}, {c_out}, {kernel}, stride={stride}, padding={padding}, bias=False)"
    return f"nn.Sequential({conv}, nn.BatchNorm2d({c_out}), nn.ReLU())"


def _layer_text(spec: dict, c_in: int) -> str:
    op = spec["op"]
    if op in POOL_OPS:
        return f"nn.{'AvgPool2d' if op == 'avgpool' else 'MaxPool2d'}(2, stride=2)"
    channels, kernel, stride = spec["channels"], spec["kernel"], spec["stride"]
    if op == "conv":
        return _conv_bn_relu(c_in, channels, kernel, stride)
    depthwise = (
        f"nn.Conv2d({c_in}, {c_in}, {kernel}, stride={stride}, padding={kernel // 2}, "
        f"groups={c_in}, bias=False)"
    )
    pointwise = f"nn.Conv2d({c_in}, {channels}, 1, bias=False)"
    return f"nn.Sequential({depthwise}, {pointwise}, nn.BatchNorm2d({channels}), nn.ReLU())"


def network_source(config: Config) -> str:
    """A randdag configuration as a standalone PyTorch file defining ``class Net``.

    Raises:
        ValueError: the configuration is invalid (:func:`nnlat.zoo.randdag.validate`).

    Example:
        >>> config = {"resolution": 32, "num_classes": 10,
        ...           "layers": [{"op": "maxpool", "inputs": [0]}]}
        >>> "x1 = self.layer1(x0)" in network_source(config)
        True
    """
    validate(config)
    layers = config["layers"]
    shapes = _shapes(layers)
    init, forward = [], []
    for node, spec in enumerate(layers, start=1):
        channels, factor = _merge(shapes, spec["inputs"])
        terms = []
        for i in spec["inputs"]:
            if shapes[i] == (channels, factor):
                terms.append(f"x{i}")
                continue
            adapter = f"adapt{node}_{i}"
            text = _conv_bn_relu(shapes[i][0], channels, 1, factor // shapes[i][1])
            init.append(f"        self.{adapter} = {text}")
            terms.append(f"self.{adapter}(x{i})")
        init.append(f"        self.layer{node} = {_layer_text(spec, channels)}")
        forward.append(f"        x{node} = self.layer{node}({' + '.join(terms)})")
    init.append("        self.pool = nn.AdaptiveAvgPool2d(1)")
    init.append(f"        self.fc = nn.Linear({shapes[-1][0]}, {config['num_classes']})")
    forward.append(f"        return self.fc(torch.flatten(self.pool(x{len(layers)}), 1))")
    header = HEADER.format(resolution=config["resolution"], num_classes=config["num_classes"])
    body = "\n".join(init) + "\n\n    def forward(self, x0):\n" + "\n".join(forward)
    return header + body + "\n"


def build(config: Config) -> nn.Module:
    """The network built from its generated source (:func:`network_source`)."""
    return load_source_module(network_source(config), CLASS_NAME, "cobra_net.py")


def code_graph(source: str, resolution: int) -> CodeGraph:
    """What the interpreter reads in a generated network: its snippets and call graph.

    Args:
        source: a file written by :func:`network_source` (**it is run**: only ours).
        resolution: the input's height and width (the configuration's ``resolution``).

    Example:
        >>> config = {"resolution": 32, "num_classes": 10,
        ...           "layers": [{"op": "maxpool", "inputs": [0]}]}
        >>> [s.kind for s in code_graph(network_source(config), 32).snippets]
        ['MaxPool2d', 'AdaptiveAvgPool2d', 'flatten', 'Linear']
    """
    with torch.device("meta"):
        module = load_source_module(source, CLASS_NAME, "cobra_net.py")
    return interpret_module(module, {"x0": (1, 3, resolution, resolution)}, source="cobra_net.py")


NETWORKS = Family(
    name="cobra-net",
    summary="COBRA's random ResNet-like networks, built from generated PyTorch source",
    sample=sample,
    build=build,
)


def _source_build(config: Config) -> nn.Module:
    return load_source_module(config["source"], config["class"], "model.py", config.get("init"))


SOURCES = Family(
    name="cobra-source",
    summary="a module class of a PyTorch source file, built and timed as written",
    sample=not_sampled("cobra-source variants are given as source files, not sampled"),
    build=_source_build,
    input_shape=lambda config: tuple(config["input"]),
    output_shape=lambda config: output_on_meta(lambda: _source_build(config), config["input"]),
)
"""Any one-input module given as source (``{"source": text, "class": name, "input": dims}``,
optionally ``"init"``: the constructor's keyword arguments;
**the text is run**): how a hand-written module is timed on the torch platforms, to check
a COBRA prediction of the same file (``scripts/cobra_handwritten.py``)."""
