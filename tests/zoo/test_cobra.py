"""COBRA's generated datasets: Table 4 layers as snippets, A.2 networks as source files."""

from __future__ import annotations

import random
from collections import Counter

import torch

from nnlat.code import SnippetModule, interpret_module
from nnlat.zoo import get_family
from nnlat.zoo.cobra import LAYERS, NETWORKS, SOURCES, layer_snippet, network_source
from nnlat.zoo.cobra.layers import (
    LAYER_TYPES,
    MAX_LAYER_MACS,
    MAX_TENSOR_ELEMENTS,
    SIZE_LIMIT,
    cost,
    layer_module,
)

CONFIGS = [LAYERS.sample(random.Random(seed)) for seed in range(400)]


def test_layer_sampling_is_seeded_and_covers_the_eight_types_in_table_4_shares() -> None:
    assert LAYERS.sample(random.Random(7)) == CONFIGS[7]
    counts = Counter(c["type"] for c in CONFIGS)
    assert set(counts) <= set(LAYER_TYPES)
    assert counts["Convolution"] > counts["ReLU"] > counts["BatchNormalization"] > counts["Add"]
    for config in CONFIGS:
        macs, elements = cost(config)  # type: ignore[misc]
        assert macs <= MAX_LAYER_MACS and elements <= MAX_TENSOR_ELEMENTS
        sizes = [config[k] for k in ("h", "w", "c", "c_in", "c_out") if k in config]
        assert all(1 <= s < SIZE_LIMIT for s in sizes)


def test_every_layer_snippet_runs_and_the_interpreter_writes_the_same_text() -> None:
    for config in CONFIGS[:60]:
        text = layer_snippet(config)
        with torch.device("meta"):
            module = SnippetModule(text)
            out = module(torch.empty(LAYERS.input_shape(config)))
        assert tuple(out.shape) == LAYERS.output_shape(config)
        if config["type"] == "Add":
            assert text.count("\nx") + text.startswith("x") == config["inputs"]
            continue
        # The dataset's snippet is the one the interpreter extracts from a network.
        with torch.device("meta"):
            net = torch.nn.Sequential(layer_module(config))
        graph = interpret_module(net, {"input": LAYERS.input_shape(config)})
        assert [s.text for s in graph.snippets] == [text]


def test_a_convolution_snippet_spells_table_4s_parameters() -> None:
    config = {
        "type": "Convolution", "h": 20, "w": 9, "c": 6, "c_out": 4,
        "kernel": [3, 1], "stride": [2, 1], "padding": [1, 0], "dilation": [1, 2],
    }  # fmt: skip
    text = layer_snippet(config)
    assert "kernel_size=(3,1),stride=(2,1),padding=(1,0),dilation=(1,2),groups=2" in text
    assert text.endswith("assert(y.shape==(1,4,10,9))")


def test_a_network_source_builds_the_randdag_graph_and_reads_back_as_code() -> None:
    config = NETWORKS.sample(random.Random(5))
    source = network_source(config)
    compile(source, "net.py", "exec")
    assert "class Net(nn.Module):" in source
    with torch.device("meta"):
        from_source = NETWORKS.build(config)
        reference = get_family("randdag").build(config)
    count = sum(p.numel() for p in from_source.parameters())
    assert count == sum(p.numel() for p in reference.parameters())
    res = config["resolution"]
    graph = interpret_module(from_source, {"x0": (1, 3, res, res)}, source="cobra_net.py")
    kinds = graph.kinds()
    assert kinds["Linear"] == 1 and kinds.get("Conv2d", 0) >= 1
    assert all(s.location.startswith("cobra_net.py:") for s in graph.snippets)
    # One M-input addition per layer with several inputs.
    assert kinds.get("add", 0) == sum(len(layer["inputs"]) > 1 for layer in config["layers"])


def test_a_module_given_as_source_is_built_as_written() -> None:
    source = (
        "import torch\nclass Tagger(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.lstm = torch.nn.LSTM(8, 4, batch_first=True)\n"
        "    def forward(self, x):\n        return self.lstm(x)[0]\n"
    )
    model = SOURCES.model({"source": source, "class": "Tagger", "input": [1, 5, 8]})
    assert model.input_shape == (1, 5, 8)
    assert SOURCES.output_shape(model.config) == (1, 5, 4)
    assert isinstance(SOURCES.build(model.config).lstm, torch.nn.LSTM)
