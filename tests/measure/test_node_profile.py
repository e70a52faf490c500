"""Per-node profiles: reading onnxruntime's trace, crediting kernels to graph nodes, and
the runner's profile step (on by default, off for free, never failing a measurement)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from nnlat.graph import load
from nnlat.measure.backends import onnxruntime as ort_backend
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.node_profile import attribute, node_shares, trace_node_times
from nnlat.measure.runner import measure, reference_platform
from nnlat.measure.types import MeasureSpec, NodeProfile, NodeTime
from nnlat.testing import tiny_model

FAST = MeasureSpec(min_runs=3, max_time_s=0.05, warmup_max_s=0.05)


def _run(ts: int) -> dict[str, object]:
    return {"cat": "Session", "name": "model_run", "ts": ts, "dur": 90}


def _kernel(name: str, ts: int, us: int, op: str = "Conv") -> dict[str, object]:
    return {"cat": "Node", "name": f"{name}_kernel_time", "ts": ts, "dur": us,
            "args": {"op_name": op}}  # fmt: skip


def test_trace_skips_warmup_takes_medians_and_sums_a_loop() -> None:
    events = [
        _run(0), _kernel("a", 1, 1000),  # warm-up: dropped
        _run(100), _kernel("a", 101, 10), _kernel("body", 102, 1, "Add"),
        _kernel("body", 103, 2, "Add"),
        _run(200), _kernel("a", 201, 30), _kernel("body", 202, 3, "Add"),
        _run(300), _kernel("a", 301, 20),
        {"cat": "Session", "name": "session_initialization", "ts": 0, "dur": 5},
    ]  # fmt: skip
    times = dict((name, (op, ms)) for name, op, ms in trace_node_times(events))
    assert times["a"] == ("Conv", pytest.approx(0.020))
    # run 1: 1 + 2 us inside a loop; run 2: 3 us; run 3: absent (0) → median 3 us
    assert times["body"] == ("Add", pytest.approx(0.003))


def _named_model() -> onnx.ModelProto:
    """Conv "conv" → Relu "relu" → Add "add" (the Relu's output named ``/relu_out``)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])
    weight = numpy_helper.from_array(np.ones((2, 2, 1, 1), np.float32), "w")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
        helper.make_node("Relu", ["c"], ["/relu_out"], name="relu"),
        helper.make_node("Add", ["/relu_out", "x"], ["y"], name="add"),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y], [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_attribute_follows_the_rules() -> None:
    graph = load(_named_model())
    assert [(n.name, n.op_type) for n in graph.nodes] == [
        ("conv", "Conv"), ("relu", "Relu"), ("add", "Add"),
    ]  # fmt: skip
    found = attribute(
        graph,
        [
            ("add", "Add", 1.0),  # rule 1: a node's own name
            ("/relu_out_nchwc", "Conv", 2.0),  # rule 2 (a tensor's producer), 3 (fusion)
            ("relu_token_3", "Relu", 0.5),  # rule 2 (a suffix, then a node name)
            ("fused relu", "FusedConv", 0.25),  # rule 2 (a prefix), rule 3 (Fused<Op>)
            ("add/QuickGeluFusion/", "QuickGelu", 0.125),  # rule 2 (a fusion's suffix)
            ("ReorderOutput_token_1", "ReorderOutput", 0.1),  # nothing
        ],
    )
    assert [t.node_index for t in found] == [2, 0, 1, 0, 2, None]
    assert [t.ms for t in found] == [1.0, 2.0, 0.5, 0.25, 0.125, 0.1]


def _loop_model() -> bytes:
    """x → Transpose → Loop (3 steps; its body squares the carried tensor) → y."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond"], ["cond_out"], name="step/keep_going"),
            helper.make_node("Mul", ["carried", "carried"], ["squared"], name="step/square"),
            helper.make_node("Sigmoid", ["squared"], ["carried_out"], name="step/squash"),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            helper.make_tensor_value_info("carried", TensorProto.FLOAT, [64, 64]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("carried_out", TensorProto.FLOAT, [64, 64]),
        ],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Transpose", ["x"], ["t"], name="transpose"),
            helper.make_node("Loop", ["trips", "", "t"], ["y"], name="loop", body=body),
        ],
        "loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 64])],
        [numpy_helper.from_array(np.array(3, dtype=np.int64), "trips")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model.SerializeToString()


def test_kernels_inside_a_loop_body_are_the_loop_nodes_time() -> None:
    graph = load(_loop_model())
    found = attribute(
        graph,
        [("transpose", "Transpose", 1.0), ("step/square", "Mul", 2.0),
         ("squared", "Sigmoid", 0.5), ("Gather_7", "Gather", 0.25)],
    )  # fmt: skip
    # by a body node's name, by a body tensor's name; an unknown name stays uncredited
    assert [t.node_index for t in found] == [0, 1, 1, None]
    # and onnxruntime's own profile of that model gives the Loop node a share
    m = measure(_loop_model(), reference_platform(), FAST)
    assert m.status == "ok" and m.node_profile is not None
    shares = node_shares(m.node_profile, len(graph.nodes))
    assert shares is not None and shares[1] > 0


def test_shares_mask_nodes_without_a_kernel_and_refuse_another_graph() -> None:
    profile = NodeProfile(
        runtime="onnxruntime",
        runtime_version="1",
        runs=3,
        nodes=(
            NodeTime(name="c", op="Conv", ms=2.0, node_index=0),
            NodeTime(name="c2", op="Conv", ms=1.0, node_index=0),
            NodeTime(name="g", op="Gemm", ms=0.5, node_index=2),
            NodeTime(name="r", op="ReorderOutput", ms=0.5),
        ),
    )
    shares = node_shares(profile, 3)
    assert shares is not None
    assert shares[0] == pytest.approx(0.75) and np.isnan(shares[1])
    assert shares[2] == pytest.approx(0.125)
    assert node_shares(profile, 2) is None  # index 2 does not exist: another graph


def test_onnxruntime_measurement_carries_a_profile() -> None:
    m = measure(tiny_model(), reference_platform(), FAST)
    assert m.status == "ok" and m.node_profile_note is None
    profile = m.node_profile
    assert profile is not None and profile.runtime == "onnxruntime" and profile.runs == 1
    assert profile.total_ms() > 0
    credited = {t.node_index for t in profile.nodes} - {None}
    assert 0 in credited  # the Conv (fused with its Relu or not)


def test_profile_off_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("profiled with profile_runs=0")

    monkeypatch.setattr(ort_backend, "profile_model", never)
    m = measure(tiny_model(), reference_platform(), FAST.model_copy(update={"profile_runs": 0}))
    assert m.status == "ok" and m.node_profile is None and m.node_profile_note is None


def test_a_failing_profile_is_a_note_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("trace unreadable")

    monkeypatch.setattr(ort_backend, "profile_model", broken)
    m = measure(tiny_model(), reference_platform(), FAST)
    assert m.status == "ok" and m.stats is not None and m.node_profile is None
    assert m.node_profile_note == "profile failed: RuntimeError: trace unreadable"


def test_a_backend_without_a_profiler_is_left_alone() -> None:
    reg = backend_registry({"fake": FakeBackend})
    m = measure(tiny_model(), "fake-fake1.0-fp32-t1", FAST, backends=reg)
    assert m.status == "ok" and m.node_profile is None and m.node_profile_note is None
