"""Remove nodes whose results nobody reads, and initializers no node reads.

Exporters leave such dead code behind; no runtime executes it.
"""

from __future__ import annotations

import onnx

from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions


def _reads(node: onnx.NodeProto) -> set[str]:
    names = set(node.input)
    for attr in node.attribute:
        subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
        for sub in subs:
            for inner in iter_graphs(sub):
                names.update(i for n in inner.node for i in n.input)
                names.update(o.name for o in inner.output)
    return names


def prune_dead(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Remove dead nodes and unused initializers of the top-level graph, in place."""
    graph = model.graph
    live = {o.name for o in graph.output}
    kept: list[onnx.NodeProto] = []
    for node in reversed(graph.node):
        if any(o in live for o in node.output if o):
            kept.append(node)
            live.update(_reads(node))
    if len(kept) != len(graph.node):
        del graph.node[:]
        graph.node.extend(reversed(kept))
    unused = [t for t in graph.initializer if t.name not in live]
    for tensor in unused:
        graph.initializer.remove(tensor)
