"""Cutting kernels out of a graph: every kernel becomes a runnable model of its own."""

from __future__ import annotations

import random

import numpy as np
import onnxruntime as ort
import pytest

from nnlat.graph import load
from nnlat.graph.extract import extract_kernel, kernel_boundary
from nnlat.graph.kernels import split_kernels
from nnlat.measure.inputs import materialize_weights
from nnlat.zoo import get_family


@pytest.mark.slow
@pytest.mark.parametrize("family", ["mobilenetv3", "nasbench201"])
def test_every_kernel_runs_alone_with_the_shapes_it_has_in_the_model(family: str) -> None:
    spec = get_family(family)
    graph = spec.model(spec.sample(random.Random(0))).to_graph()
    cut = 0
    for kernel in split_kernels(graph):
        model = extract_kernel(graph, kernel)
        if model is None:
            continue
        cut += 1
        assert len(model.graph.node) == len(kernel.nodes)
        kernel_graph = load(model)
        _, outputs = kernel_boundary(graph, kernel)
        for spec_in in kernel_graph.inputs:
            assert spec_in.shape == graph.tensors[spec_in.name].shape
        session = ort.InferenceSession(
            materialize_weights(kernel_graph.onnx_bytes).SerializeToString(),
            providers=["CPUExecutionProvider"],
        )
        feeds = {
            i.name: np.zeros(graph.tensors[i.name].shape, dtype=np.float32)
            for i in session.get_inputs()
        }
        results = session.run(None, feeds)
        assert [r.shape for r in results] == [tuple(graph.tensors[o].shape) for o in outputs]
    assert cut >= 10


def test_boundary_of_a_residual_kernel_reads_the_skip_input() -> None:
    resnet = get_family("resnet")
    graph = resnet.model(resnet.canonical["resnet18"]).to_graph()
    fused = [k for k in split_kernels(graph) if k.pattern == "Conv+Add+Relu"]
    assert fused
    inputs, outputs = kernel_boundary(graph, fused[0])
    assert len(inputs) == 2 and len(outputs) == 1
