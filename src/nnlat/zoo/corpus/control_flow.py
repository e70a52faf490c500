"""``rnn-control-flow``: recurrent models inside ``If`` branches and ``Loop`` bodies.

Two structures that deployed exports have and plain tracing never produces:

- ``if``: a voice-activity detector in the style of Silero VAD — two front-ends (for 16
  and 8 kHz audio), each a strided ``Conv1d`` stack, an ``LSTM`` or ``GRU`` that takes and
  returns a recurrent state, and a sigmoid head, as the two branches of an ``If`` on the
  sample-rate input (a scalar). The recurrent op, its weights and its state handling sit
  inside the branches.
- ``loop``: a streaming recurrent model or greedy decoder — a ``Loop`` over the time steps
  (trip count from ``Shape``) whose body gathers step *t*, runs a GRU/LSTM/RNN cell and
  emits a scan output; for a decoder, the next input is the ``ArgMax`` of the step's
  logits looked up in an embedding table (``Gather``).

The pieces are exported from torch at the configuration's opset (11–18) and assembled with
``onnx.helper``. Scaled down: 256–1,536 samples per VAD window, 8–64 loop steps, hidden
sizes 16–128, so that one inference takes well under a millisecond to a few.
"""

from __future__ import annotations

import random

import onnx
import torch
from onnx import TensorProto, helper
from torch import nn

from nnlat.zoo.corpus.export import OPSETS, export_torchscript, no_module, seeded
from nnlat.zoo.family import Config, Family

CELLS = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}


class VadBranch(nn.Module):
    """One sample rate's path: conv front-end → recurrent layer (state in/out) → prob."""

    def __init__(self, c: Config, stride: int) -> None:
        super().__init__()
        width, layers = c["width"], []
        cin = 1
        for i in range(c["convs"]):
            layers += [
                nn.Conv1d(cin, width, c["kernel"], stride if i == 0 else 2, c["kernel"] // 2),
                nn.ReLU(),
            ]
            cin = width
        self.frontend = nn.Sequential(*layers)
        self.rnn = CELLS[c["cell"]](width, c["hidden"], batch_first=False)
        self.head = nn.Sequential(nn.ReLU(), nn.Conv1d(c["hidden"], 1, 1), nn.Sigmoid())
        self.lstm = c["cell"] == "lstm"

    def forward(self, x: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, ...]:
        feats = self.frontend(x.unsqueeze(1)).permute(2, 0, 1)  # (T, 1, width)
        if self.lstm:
            out, (h, c) = self.rnn(feats, (state[:1], state[1:]))
            new_state = torch.cat([h, c])
        else:
            out, new_state = self.rnn(feats, state)
        prob = self.head(out.permute(1, 2, 0)).mean(-1)  # (1, 1)
        return prob, new_state


class Step(nn.Module):
    """One ``Loop`` step: a cell over (input, state), and the step's output."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        self.rnn = CELLS[c["cell"]](c["features"], c["hidden"])
        self.out = nn.Linear(c["hidden"], c["num_classes"])
        self.lstm = c["cell"] == "lstm"

    def forward(self, x: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if self.lstm:
            y, (h, c) = self.rnn(x.unsqueeze(0), (state[:1], state[1:]))
            state = torch.cat([h, c])
        else:
            y, state = self.rnn(x.unsqueeze(0), state)
        return state, self.out(y[0])


def _state_shape(c: Config) -> tuple[int, int, int]:
    return (2 if c["cell"] == "lstm" else 1, 1, c["hidden"])


def _batch_first(c: Config) -> list[int]:
    """The state as a graph input: batch first, ``(1, states, hidden)``, so that the
    measured batch dimension is the batch (the recurrent ops want it second)."""
    return [1, 2 if c["cell"] == "lstm" else 1, c["hidden"]]


def _batch_first_state(outer: str, inner: str) -> onnx.NodeProto:
    """``Transpose`` of the batch-first state input into the recurrent ops' layout."""
    return helper.make_node("Transpose", [outer], [inner], perm=[1, 0, 2])


def _subgraph(
    model: onnx.ModelProto, prefix: str, inputs: dict[str, str], outputs: list[str]
) -> onnx.GraphProto:
    """``model``'s graph as a subgraph: its inputs renamed to outer-scope values
    (``inputs``: inner → outer name; they stop being graph inputs), every other name
    prefixed (no clash with the outer graph), its outputs renamed to ``outputs``."""
    g = model.graph
    names = dict(inputs)
    names.update({o.name: new for o, new in zip(g.output, outputs, strict=True)})

    def rename(name: str) -> str:
        return names.get(name, f"{prefix}{name}" if name else name)

    nodes = []
    for node in g.node:
        new = onnx.NodeProto()
        new.CopyFrom(node)
        new.name = f"{prefix}{node.name}"
        new.input[:] = [rename(n) for n in node.input]
        new.output[:] = [rename(n) for n in node.output]
        nodes.append(new)
    weights = []
    for tensor in g.initializer:
        new_t = onnx.TensorProto()
        new_t.CopyFrom(tensor)
        new_t.name = rename(tensor.name)
        weights.append(new_t)
    outs = []
    for value in g.output:
        new_v = onnx.ValueInfoProto()
        new_v.CopyFrom(value)
        new_v.name = rename(value.name)
        outs.append(new_v)
    return helper.make_graph(nodes, prefix.strip("_"), [], outs, weights)


def _if_model(c: Config) -> onnx.ModelProto:
    state_shape = _state_shape(c)
    branches = []
    for name, stride in (("then", c["stride_16k"]), ("else", c["stride_8k"])):
        with seeded(c["seed"] + len(branches)):
            module = VadBranch(c, stride)
        exported = export_torchscript(
            module,
            {"x": torch.randn(1, c["samples"]), "state": torch.zeros(*state_shape)},
            c["opset"],
        )
        # VadBranch.forward returns (prob, state): the graph's outputs in that order
        branches.append(
            _subgraph(
                exported,
                f"{name}_",
                {"x": "input", "state": "state"},
                [f"{name}_prob", f"{name}_state"],
            )
        )
    nodes = [
        _batch_first_state("state_in", "state"),
        helper.make_node(
            "Constant",
            [],
            ["sr16k"],
            value=helper.make_tensor("sr16k_value", TensorProto.INT64, [], [16000]),
        ),
        helper.make_node("Equal", ["sr", "sr16k"], ["is16k"]),
        helper.make_node(
            "If", ["is16k"], ["output", "stateN"], then_branch=branches[0], else_branch=branches[1]
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "vad",
        [
            helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, c["samples"]]),
            helper.make_tensor_value_info("state_in", TensorProto.FLOAT, _batch_first(c)),
            helper.make_tensor_value_info("sr", TensorProto.INT64, []),
        ],
        [
            helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1]),
            helper.make_tensor_value_info("stateN", TensorProto.FLOAT, list(state_shape)),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", c["opset"])])


def _loop_model(c: Config) -> onnx.ModelProto:
    state_shape = _state_shape(c)
    with seeded(c["seed"]):
        step = Step(c)
        embedding = torch.randn(c["num_classes"], c["features"])
    exported = export_torchscript(
        step,
        {"x_t": torch.randn(1, c["features"]), "h": torch.zeros(*state_shape)},
        c["opset"],
    )
    # Step.forward returns (state, logits): the graph's outputs in that order
    body = _subgraph(exported, "step_", {"x_t": "x_t", "h": "h_in"}, ["h_out", "logits_t"])
    decoder = c["kind"] == "decoder"
    if decoder:  # the next input is the embedding of this step's argmax
        feed = [
            helper.make_node("ArgMax", ["prev"], ["token"], axis=-1, keepdims=0),
            helper.make_node("Gather", ["embedding", "token"], ["x_t"], axis=0),
        ]
        extra_out = [helper.make_node("Identity", ["logits_t"], ["prev_out"])]
    else:
        feed = [helper.make_node("Gather", ["sequence", "iter"], ["x_t"], axis=1)]
        extra_out = []
    body_nodes = [
        *feed,
        *body.node,
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        *extra_out,
        helper.make_node("Identity", ["logits_t"], ["scan_t"]),
    ]
    body_inputs = [
        helper.make_tensor_value_info("iter", TensorProto.INT64, []),
        helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
        helper.make_tensor_value_info("h_in", TensorProto.FLOAT, list(state_shape)),
    ]
    logits = [1, c["num_classes"]]
    body_outputs = [
        helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
        helper.make_tensor_value_info("h_out", TensorProto.FLOAT, list(state_shape)),
    ]
    if decoder:
        body_inputs.append(helper.make_tensor_value_info("prev", TensorProto.FLOAT, logits))
        body_outputs.append(helper.make_tensor_value_info("prev_out", TensorProto.FLOAT, logits))
    body_outputs.append(helper.make_tensor_value_info("scan_t", TensorProto.FLOAT, logits))
    body_graph = helper.make_graph(
        body_nodes, "body", body_inputs, body_outputs, list(body.initializer)
    )
    steps = c["steps"]
    outer_inputs = [helper.make_tensor_value_info("h0_in", TensorProto.FLOAT, _batch_first(c))]
    weights = []
    if decoder:
        outer_inputs.append(
            helper.make_tensor_value_info("start", TensorProto.FLOAT, [1, c["num_classes"]])
        )
        weights.append(onnx.numpy_helper.from_array(embedding.numpy(), "embedding"))
        trip = [
            helper.make_node(
                "Constant",
                [],
                ["trip"],
                value=helper.make_tensor("trip_value", TensorProto.INT64, [], [steps]),
            )
        ]
    else:
        outer_inputs.insert(
            0,
            helper.make_tensor_value_info("sequence", TensorProto.FLOAT, [1, steps, c["features"]]),
        )
        trip = [
            helper.make_node("Shape", ["sequence"], ["shape"]),
            helper.make_node(
                "Constant",
                [],
                ["one"],
                value=helper.make_tensor("one_value", TensorProto.INT64, [], [1]),
            ),
            helper.make_node("Gather", ["shape", "one"], ["trip"], axis=0),
        ]
    loop_out = ["h_final", *(["last"] if decoder else []), "logits"]
    nodes = [
        _batch_first_state("h0_in", "h0"),
        *trip,
        helper.make_node(
            "Constant",
            [],
            ["true"],
            value=helper.make_tensor("true_value", TensorProto.BOOL, [], [True]),
        ),
        helper.make_node(
            "Loop",
            ["trip", "true", "h0", *(["start"] if decoder else [])],
            loop_out,
            body=body_graph,
        ),
        helper.make_node("Softmax", ["logits"], ["output"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        c["kind"],
        outer_inputs,
        [
            helper.make_tensor_value_info("output", TensorProto.FLOAT, [steps, *logits]),
            helper.make_tensor_value_info("h_final", TensorProto.FLOAT, list(state_shape)),
        ],
        weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", c["opset"])])


def sample(rng: random.Random) -> Config:
    """Draw an ``if`` (VAD), ``loop`` (streaming RNN) or ``decoder`` (greedy) model.

    Example:
        >>> sample(random.Random(0))["kind"] in ("if", "loop", "decoder")
        True
    """
    kind = rng.choice(["if", "loop", "decoder"])
    config: Config = {
        "kind": kind,
        "cell": rng.choice(["lstm", "gru", "rnn"]),
        "hidden": rng.choice([16, 32, 64, 96, 128]),
        "opset": rng.choice([o for o in OPSETS if o >= 11]),
        "num_classes": rng.choice([2, 16, 32, 64]),
        "seed": 0,
    }
    if kind == "if":
        config.update(
            samples=rng.choice([256, 512, 1024, 1536]),
            width=rng.choice([16, 32, 64]),
            convs=rng.randint(1, 3),
            kernel=rng.choice([3, 5, 9]),
            stride_16k=rng.choice([4, 8]),
            stride_8k=rng.choice([2, 4]),
            num_classes=1,
        )
    else:
        config.update(steps=rng.choice([8, 16, 32, 64]), features=rng.choice([8, 16, 32, 64]))
    return config


def input_shape(config: Config) -> tuple[int, ...]:
    """The main input: the audio window (``if``), the sequence (``loop``), or the state."""
    if config["kind"] == "if":
        return (1, config["samples"])
    if config["kind"] == "loop":
        return (1, config["steps"], config["features"])
    return tuple(_batch_first(config))


def export(config: Config) -> onnx.ModelProto:
    """The configuration's model: torch-exported pieces assembled into ``If``/``Loop``."""
    model = _if_model(config) if config["kind"] == "if" else _loop_model(config)
    model.ir_version = min(model.ir_version, 8)  # runtimes of 2022 on read it
    onnx.checker.check_model(model)
    return model


FAMILY = Family(
    name="rnn-control-flow",
    summary="recurrent models inside If branches (VAD) and Loop bodies (streaming, greedy)",
    sample=sample,
    build=no_module,
    input_shape=input_shape,
    output_shape=lambda c: (1, c["num_classes"]),
    export_onnx=export,
)
