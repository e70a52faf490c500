"""Cut a kernel out of a graph as a model of its own, to time it alone.

The boundary follows data flow: the kernel's inputs are the activations it reads that
other nodes produce (or the graph's inputs); its outputs are the tensors it produces
that other nodes read (or the graph's outputs). Weights come along as weights. The cut
itself is done by :class:`onnx.utils.Extractor` on the graph's weight-free ONNX.
"""

from __future__ import annotations

import onnx
import onnx.utils

from nnlat.graph.ir import Graph
from nnlat.graph.kernels import Kernel


def kernel_boundary(graph: Graph, kernel: Kernel) -> tuple[list[str], list[str]]:
    """The activation tensors ``kernel`` reads from outside and writes for outside.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.graph.kernels import split_kernels
        >>> from nnlat.testing import tiny_model
        >>> g = load(tiny_model())
        >>> kernel_boundary(g, split_kernels(g)[0])
        (['x'], ['z'])
    """
    inside = set(kernel.nodes)
    produced = {name for i in kernel.nodes for name in graph.nodes[i].outputs}
    graph_outputs = {o.name for o in graph.outputs}
    inputs: list[str] = []
    for i in kernel.nodes:
        node = graph.nodes[i]
        for name in (*node.inputs, *node.implicit_inputs):
            if name and name not in produced and name not in graph.weights and name not in inputs:
                inputs.append(name)
    outputs = [
        name
        for i in kernel.nodes
        for name in graph.nodes[i].outputs
        if name in graph_outputs or any(r not in inside for r in graph.consumers.get(name, ()))
    ]
    return inputs, outputs


def extract_kernel(graph: Graph, kernel: Kernel) -> onnx.ModelProto | None:
    """The weight-free ONNX model computing just ``kernel``, or None for a kernel that
    reads no activation (a constant computation a runtime folds away).

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.graph.kernels import split_kernels
        >>> from nnlat.zoo import get_family
        >>> alexnet = get_family("alexnet")
        >>> g = alexnet.model(alexnet.canonical["alexnet"]).to_graph()
        >>> cut = [extract_kernel(g, k) for k in split_kernels(g)[:2]]
        >>> [[n.op_type for n in m.graph.node] for m in cut]
        [['Conv', 'Relu'], ['MaxPool']]
    """
    inputs, outputs = kernel_boundary(graph, kernel)
    if not inputs or not outputs:
        return None
    model = onnx.load_from_string(graph.onnx_bytes)
    return onnx.utils.Extractor(model).extract_model(inputs, outputs)
