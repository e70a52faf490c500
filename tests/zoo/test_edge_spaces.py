"""PerfSAGE's four design spaces: seeded, in range, and exported as runnable fully int8 TFLite.

The sampler checks need no TensorFlow. The unmarked tests export two small models (a
keyword spotter, a CIFAR CNN) with the direct writer (the default converter); TensorFlow's
converter, seconds per model, and the large spaces run under ``slow``. The writer is
checked against TensorFlow in ``test_edge_writer.py``.
"""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nnlat.errors import NnlatError
from nnlat.zoo import EDGE_FAMILY_MODULES, get_family
from nnlat.zoo.edge import cnn_cifar10, cnn_imagenet, cnn_kws, vit_cifar100
from nnlat.zoo.edge.cnn_imagenet import KERNELS, NODES_PER_BLOCK, OPS, WIDTH_MULTIPLIERS

SPACES = {
    "cnn-cifar10": cnn_cifar10,
    "cnn-imagenet": cnn_imagenet,
    "cnn-kws": cnn_kws,
    "vit-cifar100": vit_cifar100,
}
# Operators each space may contain (TensorFlow 2.21's converter); every model has the first
# set, none has an operator outside the second.
REQUIRED_OPS = {
    "cnn-cifar10": {"CONV_2D", "PAD", "AVERAGE_POOL_2D", "RESHAPE"},
    "cnn-imagenet": {"CONV_2D", "PAD", "AVERAGE_POOL_2D", "RESHAPE"},
    "cnn-kws": {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "RESHAPE"},
    "vit-cifar100": {"FULLY_CONNECTED", "SOFTMAX", "BATCH_MATMUL", "STRIDED_SLICE", "ADD"},
}
CNN_OPS = {"CONV_2D", "DEPTHWISE_CONV_2D", "PAD", "ADD", "AVERAGE_POOL_2D", "RESHAPE"}
ALLOWED_OPS = {
    "cnn-cifar10": CNN_OPS,
    "cnn-imagenet": CNN_OPS,
    "cnn-kws": {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "RESHAPE"},
    "vit-cifar100": REQUIRED_OPS["vit-cifar100"]
    | {"RESHAPE", "TRANSPOSE", "CONCATENATION", "MUL", "GELU"},
}


def samples(name: str, count: int = 200) -> list:  # type: ignore[type-arg]
    return [SPACES[name].sample(random.Random(seed)) for seed in range(count)]


# --- samplers (no TensorFlow) -------------------------------------------------------------


def test_the_four_spaces_are_registered_as_tflite_families() -> None:
    assert len(EDGE_FAMILY_MODULES) == 4
    for name in SPACES:
        assert get_family(name).source_format == "tflite"
    assert get_family("resnet").source_format == "onnx"


@pytest.mark.parametrize("name", SPACES)
def test_sampling_is_deterministic_diverse_and_round_trips_through_json(name: str) -> None:
    family = get_family(name)
    configs = [family.sample(random.Random(seed)) for seed in range(200)]
    assert configs == [family.sample(random.Random(seed)) for seed in range(200)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) >= 190
    config_type = type(SPACES[name].sample(random.Random(0)))
    for config in configs:
        assert json.loads(json.dumps(config)) == config
        assert "num_classes" in config
        assert config_type.from_config(config).to_config() == config


@pytest.mark.parametrize(
    ("name", "space"), [("cnn-cifar10", cnn_cifar10.SPACE), ("cnn-imagenet", cnn_imagenet.SPACE)]
)
def test_mbconv_spaces_respect_their_choices(name: str, space: cnn_imagenet.SampleSpace) -> None:
    configs = samples(name)
    for config in configs:
        assert config.resolution == space.resolution
        assert [b.channels for b in config.blocks] == list(space.block_channels)
        assert [b.stride for b in config.blocks] == list(space.block_strides)
        for block in config.blocks:
            assert len(block.nodes) == NODES_PER_BLOCK
            # the first node changes stride and width, so it is never an identity
            assert block.nodes[0].op != "identity"
            for node in block.nodes:
                assert node.op in OPS and node.kernel in KERNELS
                assert node.width // block.channels in WIDTH_MULTIPLIERS
    # every choice is actually drawn
    nodes = [n for c in configs for b in c.blocks for n in b.nodes]
    assert {n.op for n in nodes} == set(OPS)
    assert {n.kernel for n in nodes} == set(KERNELS)
    assert {b.residual for c in configs for b in c.blocks} == {True, False}


def test_cifar10_channels_are_imagenets_divided_by_three() -> None:
    imagenet = cnn_imagenet.SPACE.block_channels
    assert cnn_cifar10.SPACE.block_channels == (
        imagenet[2] // 3,
        imagenet[3] // 3,
        imagenet[5] // 3,
    )
    assert len(cnn_cifar10.SPACE.block_channels) == 3 and len(imagenet) == 6


def test_kws_space_respects_its_ranges_and_has_non_square_kernels() -> None:
    configs = samples("cnn-kws")
    depths = {len(c.layers) for c in configs}
    assert depths == set(range(cnn_kws.MIN_LAYERS, cnn_kws.MAX_LAYERS + 1))
    kernels = set()
    for config in configs:
        assert (config.frames, config.coefficients) == (49, 10)
        assert config.first_kernel[0] in cnn_kws.FIRST_TIME_KERNELS
        assert config.first_kernel[1] in cnn_kws.FIRST_FREQ_KERNELS
        for layer in config.layers:
            assert layer.channels in cnn_kws.CHANNELS
            assert layer.kernel[0] in cnn_kws.TIME_KERNELS
            assert layer.kernel[1] in cnn_kws.FREQ_KERNELS
            kernels.add(layer.kernel)
    assert any(t != f for t, f in kernels)


def test_vit_space_respects_its_ranges() -> None:
    configs = samples("vit-cifar100")
    assert {len(c.layers) for c in configs} == set(vit_cifar100.DEPTHS)
    assert {c.embed_dim for c in configs} == set(vit_cifar100.EMBED_DIMS)
    layers = [layer for c in configs for layer in c.layers]
    assert {layer.heads for layer in layers} == set(vit_cifar100.HEADS)
    assert {layer.head_dim for layer in layers} == set(vit_cifar100.HEAD_DIMS)
    assert {layer.mlp_ratio for layer in layers} == set(vit_cifar100.MLP_RATIOS)
    assert all(c.resolution == 32 and c.num_classes == 100 for c in configs)


def test_format_mismatches_raise_a_user_error() -> None:
    kws = get_family("cnn-kws")
    with pytest.raises(NnlatError, match="to_tflite"):
        kws.model(kws.sample(random.Random(0))).build()
    resnet = get_family("resnet")
    with pytest.raises(NnlatError, match="to_onnx"):
        resnet.model(resnet.canonical["resnet18"]).to_tflite()


@pytest.mark.slow
def test_the_zoo_does_not_import_tensorflow() -> None:
    code = (
        "import sys, random, nnlat.zoo as z\n"
        "for n in ('cnn-cifar10', 'cnn-imagenet', 'cnn-kws', 'vit-cifar100'):\n"
        "    f = z.get_family(n); f.model(f.sample(random.Random(0))).input_shape\n"
        "print('tensorflow' in sys.modules or 'keras' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


# --- exports --------------------------------------------------------------------------------


def describe(flatbuffer: bytes) -> tuple[dict[str, int], set[int], list[list[int]]]:
    """Operator counts, tensor types and weight shapes of convolutions, read by ``tflite``."""
    tflite = pytest.importorskip("tflite")
    names = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
    model = tflite.Model.GetRootAsModel(flatbuffer, 0)
    assert model.SubgraphsLength() == 1
    graph = model.Subgraphs(0)
    ops: dict[str, int] = {}
    kernels = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        name = names[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        ops[name] = ops.get(name, 0) + 1
        if name in {"CONV_2D", "DEPTHWISE_CONV_2D"}:
            kernels.append(graph.Tensors(op.Inputs(1)).ShapeAsNumpy().tolist())
    types = {graph.Tensors(i).Type() for i in range(graph.TensorsLength())}
    return ops, types, kernels


def run_on_zeros(flatbuffer: bytes) -> np.ndarray:
    """Invoke the model once on an all-zero int8 input with LiteRT's interpreter."""
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    interpreter = litert.Interpreter(model_content=flatbuffer)
    interpreter.allocate_tensors()
    (source,) = interpreter.get_input_details()
    (sink,) = interpreter.get_output_details()
    assert source["dtype"] == np.int8 and sink["dtype"] == np.int8
    interpreter.set_tensor(source["index"], np.zeros(source["shape"], np.int8))
    interpreter.invoke()
    return interpreter.get_tensor(sink["index"])


def check_export(
    name: str, seed: int, converter: str = "direct"
) -> tuple[dict[str, int], list[list[int]]]:
    """Export one sample; check it is fully int8, in range, runnable, deterministic.

    Returns:
        The operator counts and the convolutions' weight shapes.
    """
    if converter == "tensorflow":
        pytest.importorskip("tensorflow")
    family = get_family(name)
    model = family.model(family.sample(random.Random(seed)))
    flatbuffer = model.to_tflite(converter)
    ops, types, kernels = describe(flatbuffer)
    int8, int32 = 9, 2  # tflite.TensorType.INT8 / INT32: int32 only for biases and shapes
    assert types <= {int8, int32}
    assert REQUIRED_OPS[name] <= set(ops) <= ALLOWED_OPS[name]
    assert run_on_zeros(flatbuffer).shape == family.output_shape(model.config)
    # same recipe, same bytes (seeded; Keras name counters are reset before each build)
    assert (
        hashlib.sha256(model.to_tflite(converter)).digest() == hashlib.sha256(flatbuffer).digest()
    )
    return ops, kernels


CONVERTERS = ["direct", pytest.param("tensorflow", marks=pytest.mark.slow)]


@pytest.mark.parametrize("converter", CONVERTERS)
def test_a_keyword_spotter_exports_fully_int8_with_non_square_kernels(converter: str) -> None:
    config = cnn_kws.sample(random.Random(2))
    ops, kernels = check_export("cnn-kws", seed=2, converter=converter)
    assert ops["DEPTHWISE_CONV_2D"] == len(config.layers)
    assert ops["CONV_2D"] == len(config.layers) + 2  # first layer, pointwise, classifier
    # TFLite weights are [out, time, freq, in] (depthwise: [1, time, freq, channels])
    assert any(shape[1] != shape[2] for shape in kernels)
    assert [kernels[0][1], kernels[0][2]] == list(config.first_kernel)


@pytest.mark.parametrize("converter", CONVERTERS)
def test_a_cifar10_network_exports_fully_int8_with_pads_for_strided_layers(converter: str) -> None:
    config = cnn_cifar10.sample(random.Random(0))
    ops, _ = check_export("cnn-cifar10", seed=0, converter=converter)
    strided = sum(b.stride > 1 for b in config.blocks)
    assert ops["PAD"] == strided


@pytest.mark.slow
@pytest.mark.parametrize("converter", ["direct", "tensorflow"])
@pytest.mark.parametrize("name", ["cnn-imagenet", "vit-cifar100"])
def test_large_spaces_export_fully_int8(name: str, converter: str) -> None:
    check_export(name, seed=3, converter=converter)


@pytest.mark.slow
def test_cli_exports_tflite_files_named_by_their_sha256(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from nnlat.cli.main import app

    args = ["zoo", "export", "-f", "cnn-kws", "-n", "2", "-s", "5", "-o", str(tmp_path), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    manifest = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    assert len({m["sha256"] for m in manifest}) == 2
    for record in manifest:
        data = (tmp_path / record["file"]).read_bytes()
        assert record["file"].endswith(".tflite")
        assert hashlib.sha256(data).hexdigest() == record["sha256"]
        # the recipe regenerates the same file
        model = get_family(record["family"]).model(record["config"])
        assert hashlib.sha256(model.to_tflite()).hexdigest() == record["sha256"]
