"""Remove no-op nodes (Identity, inference-mode Dropout), rewiring their readers.

Runtimes drop them at load time; removing them makes an export with and without them
look the same. A no-op whose output is a graph output is kept (its name is the interface).
"""

from __future__ import annotations

import onnx

from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions


def _is_noop(node: onnx.NodeProto, used: set[str]) -> bool:
    if node.domain not in ("", "ai.onnx"):
        return False
    if node.op_type == "Identity":
        return True
    # Dropout is a no-op at inference unless someone reads its mask output.
    return node.op_type == "Dropout" and (len(node.output) < 2 or node.output[1] not in used)


def eliminate_identity(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Drop no-op nodes from every graph, in place."""
    for graph in iter_graphs(model.graph):
        outputs = {o.name for o in graph.output}
        used = {i for n in graph.node for i in n.input}
        rename: dict[str, str] = {}
        kept: list[onnx.NodeProto] = []
        for node in graph.node:
            for k, name in enumerate(node.input):
                if name in rename:
                    node.input[k] = rename[name]
            if _is_noop(node, used) and node.output[0] not in outputs and node.input:
                rename[node.output[0]] = node.input[0]
            else:
                kept.append(node)
        if rename:
            del graph.node[:]
            graph.node.extend(kept)
