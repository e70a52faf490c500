"""Drop weight values: initializers keep name, dtype and shape, not data.

Inputs that merely declare an initializer (the IR < 4 convention) are removed from the
graph inputs: at inference they are constants, not data a caller feeds. The model's IR
version is raised to 4 accordingly.

Small constants (≤ KEEP_VALUE_NUMEL elements) keep their values because shape inference
needs them (Reshape targets, Resize scales, Slice bounds). Sparse initializers become
dense, data-less initializers of the same shape. The tensors of ``Constant`` nodes are
treated like initializers.
"""

from __future__ import annotations

import onnx

from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions
from nnlat.graph.tensors import KEEP_VALUE_NUMEL, drop_data, numel


def strip_weights(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Remove weight data from every graph of ``model``, in place."""
    for graph in iter_graphs(model.graph):
        for sparse in graph.sparse_initializer:
            dense = onnx.TensorProto(name=sparse.values.name, data_type=sparse.values.data_type)
            dense.dims.extend(sparse.dims)
            graph.initializer.append(dense)
        graph.ClearField("sparse_initializer")
        for tensor in graph.initializer:
            if numel(tensor) > KEEP_VALUE_NUMEL:
                drop_data(tensor)
        # A Constant node can hold a weight too; inside If/Loop bodies, which are not
        # folded into initializers, it stays a node and would keep its values.
        for node in graph.node:
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
                for attr in node.attribute:
                    if attr.type == onnx.AttributeProto.TENSOR and numel(attr.t) > KEEP_VALUE_NUMEL:
                        drop_data(attr.t)
        constants = {t.name for t in graph.initializer}
        if graph is model.graph and any(v.name in constants for v in graph.input):
            real_inputs = [v for v in graph.input if v.name not in constants]
            del graph.input[:]
            graph.input.extend(real_inputs)
    # IR 4 dropped the rule that initializers be inputs; under IR 3 shape inference ignores
    # an initializer that is not an input (those just removed, and those fold_constants
    # adds), leaving every node that reads one shapeless.
    model.ir_version = max(model.ir_version, 4)
