"""The direct int8 TFLite writer: TensorFlow's layout, no TensorFlow, and the converter's graph.

The unmarked tests need no TensorFlow. The ``slow`` ones export sampled configurations of
every space with both converters and require the same graph hash and the same operator
signatures (``nnlat.zoo.edge.signature``); ``scripts/edge_writer_equivalence.py`` does the
same on 20 configurations per space, with Vela, and reports it.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import nnlat
from nnlat.errors import NnlatError
from nnlat.zoo import get_family
from nnlat.zoo.edge.converters import CONVERTER_ENV, resolve_converter
from nnlat.zoo.edge.signature import operator_signatures

tflite = pytest.importorskip("tflite")

SPACES = ("cnn-kws", "cnn-cifar10", "vit-cifar100", "cnn-imagenet")
INT8, INT32 = 9, 2


def export(name: str, seed: int, converter: str = "direct") -> bytes:
    family = get_family(name)
    return family.model(family.sample(random.Random(seed))).to_tflite(converter)


def test_the_direct_writer_imports_neither_tensorflow_nor_keras() -> None:
    code = (
        "import sys, random\n"
        "from nnlat.zoo import get_family\n"
        "for n in ('cnn-kws', 'cnn-cifar10', 'vit-cifar100'):\n"
        "    f = get_family(n)\n"
        "    assert f.model(f.sample(random.Random(0))).to_tflite()[4:8] == b'TFL3'\n"
        "print('tensorflow' in sys.modules or 'keras' in sys.modules)\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != CONVERTER_ENV}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.stdout.strip() == "False", result.stderr


def test_the_converter_is_chosen_by_argument_then_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(CONVERTER_ENV, raising=False)
    assert resolve_converter(None) == "direct"
    monkeypatch.setenv(CONVERTER_ENV, "tensorflow")
    assert resolve_converter(None) == "tensorflow"
    assert resolve_converter("direct") == "direct"
    with pytest.raises(NnlatError, match="unknown TFLite converter 'onnx2tf'"):
        resolve_converter("onnx2tf")


@pytest.mark.parametrize("name", ["cnn-kws", "cnn-cifar10", "vit-cifar100"])
def test_direct_files_have_tensorflows_quantisation_layout(name: str) -> None:
    data = export(name, seed=1)
    model = tflite.Model.GetRootAs(data, 0)
    graph = model.Subgraphs(0)
    names = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}

    def quant(index: int) -> tuple[np.ndarray, np.ndarray, int]:
        q = graph.Tensors(index).Quantization()
        return q.ScaleAsNumpy(), q.ZeroPointAsNumpy(), q.QuantizedDimension()

    seen = set()
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        op_name = names[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        ins, outs = op.InputsAsNumpy(), op.OutputsAsNumpy()
        for t in [*ins[:1], *outs]:  # activations: int8, one scale
            assert graph.Tensors(t).Type() == INT8 and quant(t)[0].size == 1
        if op_name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            weights, bias = graph.Tensors(ins[1]), graph.Tensors(ins[2])
            axis = 3 if op_name == "DEPTHWISE_CONV_2D" else 0
            w_scale, w_zero, w_axis = quant(ins[1])
            assert weights.Type() == INT8 and w_axis == axis
            assert w_scale.size == weights.ShapeAsNumpy()[axis] and not w_zero.any()
            assert bias.Type() == INT32
            np.testing.assert_allclose(quant(ins[2])[0], quant(ins[0])[0] * w_scale, rtol=1e-6)
        if op_name == "FULLY_CONNECTED":
            assert ins[2] == -1  # the zero bias is dropped, as the converter does
            assert quant(ins[1])[0].size == graph.Tensors(ins[1]).ShapeAsNumpy()[0]
        if op_name in ("RESHAPE", "PAD", "AVERAGE_POOL_2D", "TRANSPOSE", "STRIDED_SLICE"):
            assert quant(outs[0])[0][0] == quant(ins[0])[0][0]  # values move, scale kept
        if op_name == "SOFTMAX":
            assert (quant(outs[0])[0][0], quant(outs[0])[1][0]) == (np.float32(1 / 256), -128)
        seen.add(op_name)
    assert seen  # the loop ran


def test_direct_exports_are_deterministic_and_seeded() -> None:
    from nnlat.zoo.edge import cnn_kws
    from nnlat.zoo.edge.int8_net import write_int8

    config = cnn_kws.sample(random.Random(4))
    assert write_int8(cnn_kws.network, config) == write_int8(cnn_kws.network, config)
    other = write_int8(cnn_kws.network, config, seed=1)
    assert other != write_int8(cnn_kws.network, config)
    assert operator_signatures(other) == operator_signatures(write_int8(cnn_kws.network, config))


@pytest.mark.slow
@pytest.mark.parametrize("name", SPACES)
def test_direct_and_tensorflow_exports_are_the_same_graph(name: str) -> None:
    pytest.importorskip("tensorflow")
    for seed in (11, 12):
        direct, converted = export(name, seed), export(name, seed, "tensorflow")
        assert nnlat.graph_key(nnlat.load(direct)) == nnlat.graph_key(nnlat.load(converted))
        ours, theirs = operator_signatures(direct), operator_signatures(converted)
        assert Counter(ours) == Counter(theirs)
        if name != "vit-cifar100":  # the converter reorders attention heads' operators
            assert ours == theirs


def test_cli_export_names_its_converter_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from nnlat.cli.main import app

    args = ["zoo", "export", "-f", "cnn-kws", "-n", "2", "-o", str(tmp_path), "--json"]
    result = CliRunner().invoke(app, [*args, "--converter", "direct"])
    assert result.exit_code == 0, result.output
    manifest = (tmp_path / "manifest.jsonl").read_text().splitlines()
    assert [json.loads(line)["converter"] for line in manifest] == ["direct", "direct"]
    result = CliRunner().invoke(app, [*args, "--converter", "bogus"])
    assert result.exit_code != 0
    assert "unknown TFLite converter 'bogus'" in result.output
