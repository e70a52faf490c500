"""CNN-RealBlocks: seeded and in range, and every block converts to the int8 operators of
the real architectures it stands in for (one TensorFlow conversion, about two seconds)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from nnlat.errors import ExportError
from nnlat.zoo import get_family
from nnlat.zoo.edge.cnn_realblocks import (
    BLOCKS,
    MAX_WIDTH,
    RESOLUTIONS,
    RealBlocksConfig,
    Stage,
)


def test_sampling_is_seeded_diverse_in_range_and_round_trips() -> None:
    family = get_family("cnn-realblocks")
    configs = [family.sample(random.Random(seed)) for seed in range(300)]
    assert configs == [family.sample(random.Random(seed)) for seed in range(300)]
    assert len({json.dumps(c, sort_keys=True) for c in configs}) == 300
    blocks = Counter(s["block"] for c in configs for s in c["stages"])
    assert set(blocks) == set(BLOCKS)
    for config in configs:
        assert RealBlocksConfig.from_config(json.loads(json.dumps(config))).to_config() == config
        assert config["resolution"] in RESOLUTIONS
        assert all(8 <= s["width"] <= MAX_WIDTH for s in config["stages"])
        side = config["resolution"] // (4 if config["stem"] == "conv7pool" else 2)
        for stage in config["stages"]:
            side //= stage["stride"]
        assert side >= 1  # never pooled past one pixel


def _every_block() -> RealBlocksConfig:
    """A small network with one stage of each block, strided where the block allows it."""
    stages = tuple(
        Stage(
            block=block,
            repeats=2,
            width=16,
            stride=2 if index in (1, 3, 5, 6) else 1,
            downsample="maxpool" if index == 1 else "conv",
            kernel=5,
            expansion=3,
            se=True,
        )
        for index, block in enumerate(BLOCKS)
    )
    return RealBlocksConfig(
        resolution=64,
        stem="conv7pool",
        stem_width=8,
        activation="hard_swish",
        explicit_pad=True,
        stages=stages,
        head_width=32,
        num_classes=10,
        softmax=True,
    )


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_every_block_converts_to_the_operators_of_real_architectures() -> None:
    pytest.importorskip("tensorflow")
    from nnlat.graph import load

    flatbuffer = get_family("cnn-realblocks").export_tflite(_every_block().to_config(), None)
    nodes = load(flatbuffer).nodes
    ops = {node.op_type for node in nodes}
    # nnlat's graph names the builtins as ONNX does. Concatenation (dense, inception,
    # fire), the SE gate (mean, sigmoid, mul), pooling, explicit padding, the residual add
    # and hard-swish: none of them is in PerfSAGE's CNN spaces.
    expected = {"Concat", "Mul", "Sigmoid", "MaxPool", "AveragePool", "Pad", "ReduceMean"}
    expected |= {"Add", "HardSwish", "Conv", "Gemm", "Softmax"}
    depthwise = [n for n in nodes if n.op_type == "Conv" and dict(n.attributes)["group"] > 1]
    assert depthwise
    assert expected <= ops, expected - ops


def test_the_direct_writer_is_refused_with_a_reason() -> None:
    config = get_family("cnn-realblocks").sample(random.Random(0))
    with pytest.raises(ExportError, match="tensorflow converter"):
        get_family("cnn-realblocks").export_tflite(config, "direct")
