"""What two int8 TFLite exports of one network must share: the structural signature.

Used to check the direct writer against TensorFlow's converter
(``scripts/edge_writer_equivalence.py``, ``tests/zoo/test_edge_writer.py``). Per operator:
the builtin and its version, its options, and for every input and output the shape, the
type, whether it is a constant, and the quantisation layout (how many scales, which axis)
— everything but names, weight values and calibrated scale values.
"""

from __future__ import annotations

from typing import Any

OpSignature = tuple[Any, ...]


def operator_signatures(data: bytes) -> list[OpSignature]:
    """One signature per operator of a ``.tflite`` file's first subgraph, in file order.

    Example:
        >>> import random
        >>> from nnlat.zoo.edge import cnn_kws
        >>> from nnlat.zoo.edge.int8_net import write_int8
        >>> data = write_int8(cnn_kws.network, cnn_kws.sample(random.Random(0)))
        >>> operator_signatures(data)[0][:2]
        ('RESHAPE', 1)
    """
    import tflite
    from tflite.utils import BUILTIN_OPCODE2NAME

    model = tflite.Model.GetRootAs(data, 0)
    graph = model.Subgraphs(0)
    produced = {
        int(t) for i in range(graph.OperatorsLength()) for t in graph.Operators(i).OutputsAsNumpy()
    }
    inputs = {int(t) for t in graph.InputsAsNumpy()}

    def tensor(index: int) -> tuple[Any, ...]:
        if index < 0:
            return ("omitted",)
        t = graph.Tensors(index)
        q = t.Quantization()
        scales = q.ScaleLength() if q is not None else 0
        axis = q.QuantizedDimension() if scales > 1 else 0
        const = index not in produced and index not in inputs
        shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
        return (shape, int(t.Type()), const, scales, axis)

    signatures = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        name = BUILTIN_OPCODE2NAME[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        signatures.append(
            (
                name,
                int(code.Version()),
                _options(op),
                tuple(tensor(int(t)) for t in op.InputsAsNumpy()),
                tuple(tensor(int(t)) for t in op.OutputsAsNumpy()),
            )
        )
    return signatures


def _options(op: Any) -> tuple[tuple[str, Any], ...]:
    """The operator's builtin options as sorted (field, value) pairs."""
    import tflite

    table = op.BuiltinOptions()
    if table is None:
        return ()
    kind = op.BuiltinOptionsType()
    name = next(k for k, v in vars(tflite.BuiltinOptions).items() if v == kind)
    options = getattr(tflite, name)()
    options.Init(table.Bytes, table.Pos)
    fields = []
    for attr in sorted(dir(options)):
        if not attr[0].isupper() or attr == "Init" or attr.startswith("GetRootAs"):
            continue
        if attr.endswith(("AsNumpy", "Length", "IsNone")):
            continue
        try:
            fields.append((attr, getattr(options, attr)()))
        except TypeError:  # vector accessors take an index
            continue
    return tuple(fields)
