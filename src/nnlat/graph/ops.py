"""Operator knowledge as data: one table mapping op types to cost families.

Many op types share a family, and each family has one cost function in
:mod:`nnlat.graph.cost`. An op type absent from this table is *unknown*: it gets zero
FLOPs and is reported by name, never silently ignored. Adding an op is one row here.

Ops of the default ONNX domain, of ``com.microsoft`` (onnxruntime's contrib ops,
e.g. what dynamic int8 quantization emits) and of ``tflite`` (TFLite builtins without an
ONNX counterpart, kept under their TFLite name by :mod:`nnlat.graph.tflite_io`) are
looked up, and the tree ensembles of ``ai.onnx.ml``; any other domain is unknown.
"""

from __future__ import annotations

from nnlat.graph.ir import Node

KNOWN_DOMAINS = frozenset({"", "ai.onnx", "com.microsoft", "tflite"})

_FAMILIES: dict[str, tuple[str, ...]] = {
    # Multiply-accumulate heavy ops.
    "conv": ("Conv", "ConvInteger", "QLinearConv", "FusedConv", "NhwcConv", "DeformConv"),
    "conv_transpose": ("ConvTranspose",),
    "gemm": ("Gemm", "FusedGemm"),
    "matmul": (
        "BATCH_MATMUL",
        "MatMul",
        "MatMulInteger",
        "QLinearMatMul",
        "DynamicQuantizeMatMul",
        "MatMulIntegerToFloat",
        "FusedMatMul",
        "MatMulNBits",
    ),
    "rnn": ("LSTM", "GRU", "RNN", "DynamicQuantizeLSTM"),
    # Windowed and whole-map reductions.
    "pool": ("MaxPool", "AveragePool", "LpPool", "QLinearAveragePool", "MaxRoiPool", "RoiAlign"),
    "global_pool": (
        "GlobalAveragePool",
        "GlobalMaxPool",
        "GlobalLpPool",
        "QLinearGlobalAveragePool",
    ),
    "reduce": (
        "ReduceMean",
        "ReduceSum",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceSumSquare",
        "ArgMax",
        "ArgMin",
        "TopK",
        "CumSum",
        "ARG_MAX",
        "ARG_MIN",
        "CUMSUM",
        "TOPK_V2",
    ),
    # Normalisations.
    "batch_norm": ("BatchNormalization",),
    "norm": (
        "LayerNormalization",
        "InstanceNormalization",
        "GroupNormalization",
        "LpNormalization",
        "MeanVarianceNormalization",
        "LRN",
        "SimplifiedLayerNormalization",
        "SkipLayerNormalization",
        "RMSNormalization",
        "L2_NORMALIZATION",
        "LOCAL_RESPONSE_NORMALIZATION",
    ),
    "softmax": ("Softmax", "LogSoftmax", "Hardmax"),
    # One arithmetic operation per output element (an approximation for the transcendental).
    "elementwise": (
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Pow",
        "Mod",
        "Max",
        "Min",
        "Sum",
        "Mean",
        "Where",
        "Equal",
        "Less",
        "LessOrEqual",
        "Greater",
        "GreaterOrEqual",
        "And",
        "Or",
        "Xor",
        "Not",
        "BitShift",
        "BitwiseAnd",
        "BitwiseOr",
        "BitwiseXor",
        "BitwiseNot",
        "Abs",
        "Neg",
        "Sqrt",
        "Reciprocal",
        "Exp",
        "Log",
        "Floor",
        "Ceil",
        "Round",
        "Sign",
        "Sin",
        "Cos",
        "Tan",
        "Asin",
        "Acos",
        "Atan",
        "Sinh",
        "Cosh",
        "Asinh",
        "Acosh",
        "Atanh",
        "Erf",
        "IsNaN",
        "IsInf",
        "Relu",
        "LeakyRelu",
        "PRelu",
        "Elu",
        "Selu",
        "Celu",
        "ThresholdedRelu",
        "Sigmoid",
        "HardSigmoid",
        "HardSwish",
        "Tanh",
        "Softplus",
        "Softsign",
        "Mish",
        "Gelu",
        "FastGelu",
        "BiasGelu",
        "QuickGelu",
        "Clip",
        "Shrink",
        "QLinearAdd",
        "QLinearMul",
        "QLinearSigmoid",
        "QLinearLeakyRelu",
        "BiasAdd",
        "SQUARED_DIFFERENCE",
        "RSQRT",
        "SQUARE",
        "FLOOR_DIV",
        "ATAN2",
        "SELECT",
        "SELECT_V2",
    ),
    "quantize": (
        "QuantizeLinear",
        "DequantizeLinear",
        "DynamicQuantizeLinear",
        "DequantizeBlockwise",
    ),
    "resize": ("Resize", "Upsample", "GridSample"),
    # Data movement: no arithmetic, only bytes.
    "data_movement": (
        "Reshape",
        "Flatten",
        "Squeeze",
        "Unsqueeze",
        "Transpose",
        "Concat",
        "Split",
        "Slice",
        "Gather",
        "GatherElements",
        "GatherND",
        "Scatter",
        "ScatterElements",
        "ScatterND",
        "Pad",
        "Expand",
        "Tile",
        "Cast",
        "CastLike",
        "Identity",
        "Dropout",
        "DepthToSpace",
        "SpaceToDepth",
        "Shape",
        "Size",
        "ConstantOfShape",
        "Constant",
        "Range",
        "NonZero",
        "OneHot",
        "Trilu",
        "ReverseSequence",
        "Compress",
        "Unique",
        "EyeLike",
        "SequenceConstruct",
        "SequenceAt",
        "SequenceEmpty",
        "SequenceInsert",
        "SequenceLength",
        "SplitToSequence",
        "ConcatFromSequence",
        "NonMaxSuppression",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
        "STRIDED_SLICE",
        "SLICE",
        "GATHER",
        "GATHER_ND",
        "SPLIT",
        "SPLIT_V",
        "PACK",
        "UNPACK",
        "TILE",
        "BROADCAST_TO",
        "ZEROS_LIKE",
        "ONES_LIKE",
        "FILL",
        "SHAPE",
        "RANGE",
        "BATCH_TO_SPACE_ND",
        "SPACE_TO_BATCH_ND",
        "REVERSE_V2",
        "EMBEDDING_LOOKUP",
    ),
    # Fourier transforms, which onnxruntime computes as FFTs.
    "spectral": ("DFT", "STFT"),
    # Sub-graph holders: their own cost is nil; sub-graph nodes are costed one by one.
    "control_flow": ("If", "Loop", "Scan"),
}

# The classical-ML domain: only what a cost formula exists for; its other ops (ZipMap,
# Scaler, LinearClassifier…) stay unknown. Kept apart so that an ai.onnx.ml op never
# takes the family of a default-domain op of the same name.
ML_DOMAIN = "ai.onnx.ml"
_ML_FAMILIES: dict[str, tuple[str, ...]] = {
    "tree_ensemble": ("TreeEnsembleClassifier", "TreeEnsembleRegressor", "TreeEnsemble"),
}

OP_FAMILY: dict[str, str] = {op: family for family, ops in _FAMILIES.items() for op in ops}
"""op_type → cost family."""
ML_OP_FAMILY: dict[str, str] = {op: family for family, ops in _ML_FAMILIES.items() for op in ops}
"""op_type → cost family, in the ``ai.onnx.ml`` domain."""

FAMILIES: tuple[str, ...] = (*_FAMILIES, *_ML_FAMILIES, "unknown")
"""All families, "unknown" last (the feature vocabulary of families)."""


def op_family(node: Node) -> str:
    """The cost family of ``node``, or ``"unknown"``.

    Example:
        >>> from nnlat.graph.ir import Node
        >>> op_family(Node("n", "Conv", "", (), ("x", "w"), ("y",)))
        'conv'
        >>> op_family(Node("n", "MyOp", "my.domain", (), ("x",), ("y",)))
        'unknown'
        >>> op_family(Node("n", "TreeEnsembleClassifier", "ai.onnx.ml", (), ("x",), ("y",)))
        'tree_ensemble'
    """
    if node.domain == ML_DOMAIN:
        return ML_OP_FAMILY.get(node.op_type, "unknown")
    if node.domain not in KNOWN_DOMAINS:
        return "unknown"
    return OP_FAMILY.get(node.op_type, "unknown")


def op_name(node: Node) -> str:
    """``op_type``, prefixed by its domain when not the default (``com.microsoft:Attention``)."""
    return f"{node.domain}:{node.op_type}" if node.domain not in ("", "ai.onnx") else node.op_type
