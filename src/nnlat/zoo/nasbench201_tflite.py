"""NAS-Bench-201 as fully int8 TFLite: the :mod:`~nnlat.zoo.nasbench201` space for NPUs.

The same configurations as the ONNX family ``nasbench201`` (the same sampler, the same
``arch_config``), so a variant of one family and of the other are the same network:
stem 3×3 convolution + BN, three stages of ``cells_per_stage`` cells with C, 2C, 4C
channels separated by two residual reduction blocks, then BN, ReLU, global average pooling
and a dense classifier. Here it is written in Keras (NHWC) and exported by
:func:`nnlat.zoo.edge.tflite_export.export_int8` — TensorFlow's post-training int8
quantisation, as for PerfSAGE's spaces — so Vela can compile it for an Ethos-U NPU.

Where Keras and PyTorch differ the difference is kept small and stated:
- "same" padding of the stride-2 convolution pads bottom/right only (PyTorch pads one
  pixel on each side); shapes and MAC counts are equal;
- ``avg_pool_3x3`` is TensorFlow's SAME average pooling, which, like NAS-Bench-201's
  ``count_include_pad=False``, divides by the number of valid inputs;
- a node whose every incoming edge is ``none`` is the cell input multiplied by zero, as in
  the ONNX family (a MUL by a constant in TFLite).

The primitive operations of the space, alone, at the sizes the space uses are in
:func:`primitives` (MAPLE's operation-level characterisation builds on them).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from nnlat.errors import NnlatError
from nnlat.zoo.edge.tflite_export import export_int8
from nnlat.zoo.family import Config, Family
from nnlat.zoo.nasbench201 import ALL_CONV3X3, NUM_NODES, arch_config, parse_arch, sample

if TYPE_CHECKING:
    import keras

STAGES = 3


def relu_conv_bn(
    x: keras.KerasTensor, channels: int, kernel: int, stride: int = 1, prefix: str = ""
) -> keras.KerasTensor:
    """ReLU-Conv-BN, the space's convolution; ``prefix`` names its three layers."""
    import keras

    def name(layer: str) -> str | None:
        return f"{prefix}{layer}" if prefix else None

    x = keras.layers.ReLU(name=name("relu"))(x)
    x = keras.layers.Conv2D(
        channels, kernel, strides=stride, padding="same", use_bias=False, name=name("conv")
    )(x)
    return keras.layers.BatchNormalization(name=name("bn"))(x)


def edge_op(x: keras.KerasTensor, op: str, channels: int) -> keras.KerasTensor:
    """One cell edge's operation applied to ``x`` (``none`` is not an operation here).

    Raises:
        ValueError: an operation the space does not have.
    """
    import keras

    if op == "skip_connect":
        return x
    if op == "nor_conv_1x1":
        return relu_conv_bn(x, channels, 1)
    if op == "nor_conv_3x3":
        return relu_conv_bn(x, channels, 3)
    if op == "avg_pool_3x3":
        return keras.layers.AveragePooling2D(3, strides=1, padding="same")(x)
    raise ValueError(f"no Keras layer for NAS-Bench-201 op {op!r}")


def cell(x: keras.KerasTensor, arch: str, channels: int) -> keras.KerasTensor:
    """One NAS-Bench-201 cell of ``arch`` on ``x`` (``channels`` wide)."""
    import keras

    nodes = [x]
    for edges in parse_arch(arch):
        terms = [edge_op(nodes[i], op, channels) for op, i in edges if op != "none"]
        if not terms:
            # Every edge is `none`: zeros, as x * 0 (NAS-Bench-201's Zero op), as in ONNX.
            nodes.append(keras.layers.Rescaling(0.0)(x))
        elif len(terms) == 1:
            nodes.append(terms[0])
        else:
            nodes.append(keras.layers.Add()(terms))
    assert len(nodes) == NUM_NODES
    return nodes[-1]


def reduction(x: keras.KerasTensor, channels: int) -> keras.KerasTensor:
    """The stride-2 residual block between stages, ``channels`` wide at its output."""
    import keras

    main = relu_conv_bn(relu_conv_bn(x, channels, 3, stride=2), channels, 3)
    short = keras.layers.AveragePooling2D(2, strides=2)(x)
    short = keras.layers.Conv2D(channels, 1, use_bias=False)(short)
    return keras.layers.Add()([main, short])


def stem(x: keras.KerasTensor, channels: int) -> keras.KerasTensor:
    """The 3×3 stem convolution + BN."""
    import keras

    x = keras.layers.Conv2D(channels, 3, padding="same", use_bias=False)(x)
    return keras.layers.BatchNormalization()(x)


def head(x: keras.KerasTensor, num_classes: int) -> keras.KerasTensor:
    """BN, ReLU, global average pooling, dense classifier."""
    import keras

    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.ReLU()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.layers.Dense(num_classes)(x)


def build(config: Config) -> keras.Model:
    """The Keras network of a configuration (see :func:`nnlat.zoo.nasbench201.arch_config`).

    Example:
        >>> build(arch_config(ALL_CONV3X3)).output_shape
        (1, 10)
    """
    import keras

    resolution, width = config["resolution"], config["channels"]
    inputs = keras.Input(batch_shape=(1, resolution, resolution, 3))
    x = stem(inputs, width)
    for stage in range(STAGES):
        if stage:
            width *= 2
            x = reduction(x, width)
        for _ in range(config["cells_per_stage"]):
            x = cell(x, config["arch"], width)
    return keras.Model(inputs, head(x, config["num_classes"]), name="nasbench201")


def input_shape(config: Config) -> tuple[int, ...]:
    """``(1, R, R, 3)``: NHWC, as TFLite models take images."""
    return (1, config["resolution"], config["resolution"], 3)


def output_shape(config: Config) -> tuple[int, ...]:
    """``(1, num_classes)``."""
    return (1, config["num_classes"])


Primitive = tuple[Callable[[], "keras.Model"], tuple[int, ...]]


def stage_sizes(config: Config) -> list[tuple[int, int]]:
    """(channels, resolution) of each stage's cells.

    Example:
        >>> stage_sizes(arch_config(ALL_CONV3X3))
        [(16, 32), (32, 16), (64, 8)]
    """
    channels, resolution = config["channels"], config["resolution"]
    return [(channels * 2**s, resolution // 2**s) for s in range(STAGES)]


def primitives(config: Config) -> dict[str, Primitive]:
    """Every operation of the space alone, at the sizes ``config``'s skeleton uses.

    Per stage (suffix ``_c<channels>``): ``conv1x1``, ``conv3x3`` (ReLU-Conv-BN),
    ``avgpool3x3``, ``add`` (the sum a second incoming edge, e.g. a skip connection, adds
    to a node: a skip edge itself is no operation), ``zero`` (a node whose edges are all
    ``none``: the multiplication by zero); then ``stem``, each ``reduction_c<out>`` block
    and the ``head``. The cell-independent parts (stem, reductions, head) are what every
    architecture shares.

    Returns:
        name → (Keras model builder, batch-1 NHWC input shape), for ``export_int8``.

    Example:
        >>> sorted(primitives(arch_config(ALL_CONV3X3)))[:3]
        ['add_c16', 'add_c32', 'add_c64']
    """
    import keras

    def single(
        shape: tuple[int, ...], body: Callable[[keras.KerasTensor], keras.KerasTensor]
    ) -> Primitive:
        def make() -> keras.Model:
            inputs = keras.Input(batch_shape=shape)
            return keras.Model(inputs, body(inputs))

        return make, shape

    found: dict[str, Primitive] = {}
    sizes = stage_sizes(config)
    for channels, resolution in sizes:
        shape = (1, resolution, resolution, channels)
        c = channels
        found[f"conv1x1_c{c}"] = single(shape, lambda x, c=c: edge_op(x, "nor_conv_1x1", c))
        found[f"conv3x3_c{c}"] = single(shape, lambda x, c=c: edge_op(x, "nor_conv_3x3", c))
        found[f"avgpool3x3_c{c}"] = single(shape, lambda x, c=c: edge_op(x, "avg_pool_3x3", c))
        found[f"add_c{c}"] = single(shape, lambda x: keras.layers.Add()([x, x]))
        found[f"zero_c{c}"] = single(shape, lambda x: keras.layers.Rescaling(0.0)(x))
    resolution = config["resolution"]
    found["stem"] = single((1, resolution, resolution, 3), lambda x: stem(x, config["channels"]))
    for (c_in, r_in), (c_out, _) in itertools.pairwise(sizes):
        found[f"reduction_c{c_out}"] = single(
            (1, r_in, r_in, c_in), lambda x, c=c_out: reduction(x, c)
        )
    c_last, r_last = sizes[-1]
    found["head"] = single((1, r_last, r_last, c_last), lambda x: head(x, config["num_classes"]))
    return found


CONVERTED_OPS = ("conv1x1", "conv3x3", "avgpool3x3", "add", "zero", "relu", "zero_output")


def converted_ops(arch: str) -> dict[str, int]:
    """The operators one cell of ``arch`` becomes after TensorFlow's int8 conversion.

    The converter does not keep the Keras graph as written (seen in the exported files):

    - it drops every node that does not reach the cell's output (a node whose outgoing
      edges are all ``none``), with its operations;
    - it merges identical operations on one tensor: the 3×3 average pools of one node
      (one AVERAGE_POOL_2D however many edges) and the ReLUs in front of its convolutions;
    - it fuses a ReLU into the operator producing its input when every consumer of that
      tensor is a convolution edge; a node that also feeds a skip connection or a pool
      keeps a standalone RELU.

    So the look-up-table sum of an architecture counts these, not the edges; the zero
    multiply is counted once per cell (all of a cell's ``none``-only nodes multiply the
    same input by zero). A node's producer outside the cell is not looked at (the ReLU
    of node 0 is counted by this cell's edges only). ``zero_output`` is 1 when the cell's
    output is computed from the zero multiply alone (every later cell then works on
    zeros, which Vela's estimate sees through the quantisation; its cost is not a sum of
    the parts, so it gets a count of its own).

    Returns:
        operator → count, keys :data:`CONVERTED_OPS`.

    Example:
        >>> sum(converted_ops("|none~0|+|none~0|none~1|+|skip_connect~0|none~1|none~2|").values())
        0
        >>> converted_ops(ALL_CONV3X3)["conv3x3"], converted_ops(ALL_CONV3X3)["relu"]
        (6, 0)
    """
    nodes = parse_arch(arch)
    live = {NUM_NODES - 1}
    for target in range(NUM_NODES - 1, 0, -1):
        if target in live:
            live.update(source for op, source in nodes[target - 1] if op != "none")
    counts = dict.fromkeys(CONVERTED_OPS, 0)
    consumers: dict[int, set[str]] = {node: set() for node in range(NUM_NODES)}
    zero = False
    zeros: set[int] = set()  # nodes computed from the zero multiply only
    for target in sorted(live - {0}):
        terms = [(op, source) for op, source in nodes[target - 1] if op != "none"]
        if all(source in zeros for _, source in terms):
            zeros.add(target)
        for op, source in terms:
            if op in _CONV_NAMES:
                counts[_CONV_NAMES[op]] += 1
            consumers[source].add("conv" if op in _CONV_NAMES else op)
        counts["add"] += max(len(terms) - 1, 0)
        zero = zero or not terms
    counts["avgpool3x3"] = sum("avg_pool_3x3" in kinds for kinds in consumers.values())
    counts["zero"] = int(zero)
    counts["relu"] = sum("conv" in kinds and len(kinds) > 1 for kinds in consumers.values())
    counts["zero_output"] = int(NUM_NODES - 1 in zeros)
    return counts


_CONV_NAMES = {"nor_conv_1x1": "conv1x1", "nor_conv_3x3": "conv3x3"}


def export(config: Config, converter: str | None = None) -> bytes:
    """The fully int8 ``.tflite`` of ``config``, by TensorFlow's converter.

    This space is written in Keras only (not yet against ``nnlat.zoo.edge``'s op interface),
    so the direct writer cannot export it; asking for it is an error, not a silent switch.

    Raises:
        NnlatError: ``converter="direct"``.
        ExportError: TensorFlow is missing or could not convert.
    """
    if converter not in (None, "tensorflow"):
        raise NnlatError(
            f"{FAMILY.name} exports only with the tensorflow converter (asked for {converter!r})"
        )
    return export_int8(lambda: build(config), input_shape(config))


FAMILY = Family(
    name="nasbench201-int8",
    summary="NAS-Bench-201 (same configurations as nasbench201) as fully int8 TFLite, for NPUs",
    sample=sample,
    build=build,
    input_shape=input_shape,
    output_shape=output_shape,
    canonical={"nb201_all_conv3x3": arch_config(ALL_CONV3X3)},
    source_format="tflite",
    export_tflite=export,
)
