"""NAS-Bench-201 primitives priced where a cell runs them, not alone (issue 31).

As for the keyword spotters (:mod:`~nnlat.studies.maple_kws_context`), a primitive
estimated alone pays what it does not pay inside a network: where the arena lives in DRAM
its input and output go off chip, and on U85 an ADD is fused into the convolution that
produces one of its inputs. So each cell operator of each stage is also estimated *in
context*: the node it reads is a sum of two 1×1 ReLU-Conv-BN edges of the previous node,
and what it writes is summed with a third such edge, as most nodes of a cell are. The
converter then fuses and merges as it does in a cell (the ReLU in front of a convolution
into the ADD that produces the node; a standalone RELU where a pool also reads the node),
and the primitive's cost is read from Vela's per-layer table: the rows of the layers named
``own_*``, as a share of Vela's inference time. The neighbours depend only on the stage's
sizes, never on an architecture of the study.

The result, per device, maps ``<op>_c<channels>`` (the names of
:func:`~nnlat.zoo.nasbench201_tflite.primitives`, cell operators only) to milliseconds,
stored as ``data/maple/nb201_context.json``; :func:`nnlat.studies.maple_traffic.price`
composes it under the ``context`` pricing (stem, reductions and head, which every
architecture shares, stay priced alone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
from nnlat.zoo.nasbench201_tflite import relu_conv_bn, stage_sizes

if TYPE_CHECKING:
    import keras

OWN = "own_"  # the prefix of the primitive's own Keras layers, kept in TFLite's tensor names
CELL_OPS = ("conv1x1", "conv3x3", "avgpool3x3", "add", "zero")
# The TFLite operator each primitive becomes (Vela's ``original_operator``).
_OPERATOR = {"conv1x1": "Conv2D", "conv3x3": "Conv2D", "avgpool3x3": "AvgPool", "add": "Add"}


def _primitive(op: str, node: keras.KerasTensor, channels: int) -> keras.KerasTensor:
    import keras

    if op in ("conv1x1", "conv3x3"):
        return relu_conv_bn(node, channels, int(op[4]), prefix=OWN)
    if op == "avgpool3x3":
        return keras.layers.AveragePooling2D(3, strides=1, padding="same", name=f"{OWN}pool")(node)
    if op == "zero":
        return keras.layers.Rescaling(0.0, name=f"{OWN}zero")(node)
    raise ValueError(f"no in-context network for {op!r}; known: {', '.join(CELL_OPS)}")


def context_network(op: str, channels: int, resolution: int) -> Callable[[], keras.Model]:
    """The Keras network placing ``op`` of one stage between its neighbours.

    ``add`` is the sum producing the node (two 1×1 edges of the input), every other
    operator reads that node and its output is summed with a third 1×1 edge of it.

    Raises:
        ValueError: ``op`` not in :data:`CELL_OPS`.
    """
    if op not in CELL_OPS:
        raise ValueError(f"no in-context network for {op!r}; known: {', '.join(CELL_OPS)}")

    def make() -> keras.Model:
        import keras

        x = keras.Input(batch_shape=(1, resolution, resolution, channels))
        add_name = f"{OWN}add" if op == "add" else None
        node = keras.layers.Add(name=add_name)(
            [relu_conv_bn(x, channels, 1), relu_conv_bn(x, channels, 1)]
        )
        if op == "add":
            out = relu_conv_bn(node, channels, 1)
        else:
            out = keras.layers.Add()(
                [_primitive(op, node, channels), relu_conv_bn(node, channels, 1)]
            )
        return keras.Model(x, out)

    return make


def context_networks() -> dict[str, tuple[Callable[[], keras.Model], tuple[int, ...]]]:
    """Every cell operator of every stage between its neighbours, with its input shape.

    Example:
        >>> sorted(context_networks())[:4]
        ['add_c16', 'add_c32', 'add_c64', 'avgpool3x3_c16']
    """
    return {
        f"{op}_c{channels}": (
            context_network(op, channels, resolution),
            (1, resolution, resolution, channels),
        )
        for channels, resolution in stage_sizes(arch_config(ALL_CONV3X3))
        for op in CELL_OPS
    }


def context_workloads(cache: Path | None = None) -> dict[str, bytes]:
    """The int8 ``.tflite`` of every in-context network (TensorFlow's converter; cached).

    Args:
        cache: a folder keeping the exported files between runs; None exports each time.
    """
    return export_cached(context_networks(), cache, prefix="context_")


def export_cached(
    networks: Mapping[str, tuple[Callable[[], Any], tuple[int, ...]]],
    cache: Path | None,
    prefix: str = "",
) -> dict[str, bytes]:
    """Each Keras ``(builder, input shape)`` as int8 ``.tflite`` (TensorFlow's converter).

    Args:
        cache: a folder keeping the exported files (``<prefix><name>.tflite``) between
            runs; None exports each time.

    Example:
        >>> export_cached({}, None)
        {}
    """
    from nnlat.zoo.edge.tflite_export import export_int8

    found: dict[str, bytes] = {}
    for name, (build, shape) in networks.items():
        path = cache / f"{prefix}{name}.tflite" if cache is not None else None
        if path is not None and path.is_file():
            found[name] = path.read_bytes()
            continue
        found[name] = export_int8(build, shape)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(found[name])
    return found


def characterise_in_context(platform: str, workloads: dict[str, bytes]) -> dict[str, float]:
    """Every cell operator's in-context latency (ms) on the Vela platform ``platform``.

    A row is the primitive's own when it is the primitive's operator and its output
    tensor's name carries :data:`OWN` (TensorFlow's converter joins the names of the
    layers it fuses into one operator: the node's ADD carries the name of the primitive's
    ReLU fused into it, and stays a neighbour).

    Raises:
        UnknownPlatformError: not a Vela platform offered.
        VelaRejectedError: Vela refused a network.
    """
    from nnlat.measure.backends.vela import VelaBackend, estimate

    target = VelaBackend().target(platform)
    found = {}
    for name, tflite in workloads.items():
        result = estimate(tflite, target)
        operator = _OPERATOR.get(name.split("_")[0], "Mul")
        own = [r for r in result.layers if OWN in r.name and r.original_operator == operator]
        share = sum(r.cycles for r in own) / result.cycles_total
        found[name] = 1e3 * result.inference_time_s * share
    return found
