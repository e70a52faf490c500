"""NAS-Bench-201 as int8 TFLite: same configurations as the ONNX family, NPU-ready primitives."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nnlat.zoo import get_family
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
from nnlat.zoo.nasbench201_tflite import primitives, stage_sizes


def test_it_samples_the_same_configurations_as_the_onnx_family() -> None:
    onnx, tflite = get_family("nasbench201"), get_family("nasbench201-int8")
    assert tflite.source_format == "tflite"
    for seed in range(20):
        assert onnx.sample(random.Random(seed)) == tflite.sample(random.Random(seed))
    config = arch_config(ALL_CONV3X3)
    assert tflite.model(config).input_shape == (1, 32, 32, 3)


def test_primitives_cover_every_operation_at_every_stage_size() -> None:
    names = set(primitives(arch_config(ALL_CONV3X3)))
    for channels, _ in stage_sizes(arch_config(ALL_CONV3X3)):
        for op in ("conv1x1", "conv3x3", "avgpool3x3", "add", "zero"):
            assert f"{op}_c{channels}" in names
    assert {"stem", "reduction_c32", "reduction_c64", "head"} <= names
    assert len(names) == 19


@pytest.mark.slow
def test_a_cell_with_an_all_none_node_exports_fully_int8_and_runs() -> None:
    pytest.importorskip("tensorflow")
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    family = get_family("nasbench201-int8")
    arch = "|none~0|+|none~0|none~1|+|skip_connect~0|nor_conv_1x1~1|avg_pool_3x3~2|"
    flatbuffer = family.model(arch_config(arch)).to_tflite()
    interpreter = litert.Interpreter(model_content=flatbuffer)
    interpreter.allocate_tensors()
    (source,) = interpreter.get_input_details()
    (sink,) = interpreter.get_output_details()
    assert source["dtype"] == np.int8 and tuple(source["shape"]) == (1, 32, 32, 3)
    interpreter.set_tensor(source["index"], np.zeros(source["shape"], np.int8))
    interpreter.invoke()
    assert interpreter.get_tensor(sink["index"]).shape == (1, 10)
