"""Small offline imitations of the real models the graph layer must ingest.

Each builder returns an ``onnx.ModelProto`` made on the spot (nothing is downloaded) that
reproduces the *structure* real exports have: the exporter's node patterns, dynamic
dimensions, opset-specific operator signatures, com.microsoft contrib ops from dynamic
int8 quantization, custom domains, If/Loop sub-graphs and weights stored as
``ConstantOfShape`` nodes. The models are a few kilobytes to a few hundred kilobytes,
with real (seeded) weights, so they also run in onnxruntime.

:data:`REALWORLD_BUILDERS` names every builder; :data:`EXAMPLE_INPUT_SHAPES` gives, for
models with dynamic dimensions, one concrete ``input_shapes`` override that fits.

This module needs torch (a core dependency) and, for the int8 builders, onnxruntime (the
``dev`` extra, imported lazily). ``import nnlat`` never imports it.
"""

from __future__ import annotations

import io
import math
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F  # noqa: N812 (the conventional name)
from onnx import TensorProto, helper, numpy_helper
from torch import nn

# ---------------------------------------------------------------------------------------
# Shared plumbing.


@contextmanager
def _seeded(seed: int = 0) -> Iterator[None]:
    """Seed torch's RNG for weight init without disturbing the caller's RNG state."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def _export(
    module: nn.Module,
    args: tuple[torch.Tensor | int, ...],
    *,
    opset: int,
    input_names: list[str],
    output_names: list[str],
    dynamic_axes: dict[str, dict[int, str]],
) -> onnx.ModelProto:
    """Export with the TorchScript exporter, as most deployed ONNX files were made."""
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module.eval(),
            args,
            buffer,
            dynamo=False,
            opset_version=opset,
            do_constant_folding=True,
            input_names=input_names,
            output_names=output_names,
            dynamic_axes=dynamic_axes,
        )
    return onnx.load_from_string(buffer.getvalue())


def _quantize_dynamic(
    model: onnx.ModelProto, required_ops: set[str], **kwargs: object
) -> onnx.ModelProto:
    """Dynamic int8 quantization with onnxruntime, as deployment pipelines apply it.

    Raises:
        RuntimeError: the quantized model lacks one of ``required_ops`` (the builder would
            then no longer test what its docstring promises).
    """
    from onnxruntime.quantization import quantize_dynamic

    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "float.onnx", Path(folder) / "int8.onnx"
        onnx.save(model, source)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(source, target, **kwargs)  # type: ignore[arg-type]
        quantized = onnx.load(target)
    present = {n.op_type for n in quantized.graph.node}
    missing = required_ops - present
    if missing:
        raise RuntimeError(
            f"quantize_dynamic produced no {sorted(missing)} (got {sorted(present)})"
        )
    return quantized


def _helper_model(graph: onnx.GraphProto, opsets: dict[str, int]) -> onnx.ModelProto:
    """A model with the lowest IR version its opsets allow, as the exporters of its era wrote."""
    opset_imports = [helper.make_opsetid(domain, version) for domain, version in opsets.items()]
    ir_version = helper.find_min_ir_version_for(opset_imports, ignore_unknown=True)
    return helper.make_model(graph, opset_imports=opset_imports, ir_version=ir_version)


def _weight(rng: np.random.Generator, name: str, *shape: int) -> onnx.TensorProto:
    scale = 1.0 / math.sqrt(max(1, math.prod(shape[1:])))
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def _ints(name: str, values: list[int]) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def _floats(name: str, values: list[float]) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def _scalar(name: str, value: float) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


# ---------------------------------------------------------------------------------------
# torch-exported models.


class _Crnn(nn.Module):
    """CNN feature extractor → bidirectional LSTM over image columns → per-column classes."""

    def __init__(self, classes: int = 37, hidden: int = 32) -> None:
        super().__init__()

        def block(c_in: int, c_out: int, pool: tuple[int, int]) -> list[nn.Module]:
            return [
                nn.Conv2d(c_in, c_out, 3, padding=1),
                nn.BatchNorm2d(c_out),
                nn.ReLU(),
                nn.MaxPool2d(pool, pool),
            ]

        self.cnn = nn.Sequential(
            *block(1, 16, (2, 2)),  # 16 x W/2
            *block(16, 32, (2, 2)),  # 8 x W/4
            *block(32, 64, (2, 1)),  # 4 x W/4
            nn.Conv2d(64, 64, (4, 1)),  # 1 x W/4: one feature vector per column
            nn.ReLU(),
        )
        self.rnn = nn.LSTM(64, hidden, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        features = self.cnn(image).squeeze(2).permute(2, 0, 1)  # (T, N, C)
        sequence, _ = self.rnn(features)
        return self.fc(sequence).log_softmax(-1)


def crnn_ocr() -> onnx.ModelProto:
    """A CRNN text recogniser (PaddleOCR / EasyOCR / deep-text-recognition style).

    Grayscale text-line image ``image`` (N, 1, 32, W) with dynamic batch and width →
    Conv/Relu/MaxPool stack (BatchNorm folded by the exporter) → Squeeze + Transpose to
    (T, N, C) → bidirectional ``LSTM`` → ``MatMul``/``Add`` classifier → ``LogSoftmax``.
    Opset 11 (Squeeze axes as an attribute). The exporter builds the LSTM's initial
    state with ``Shape``/``Gather``/``Concat``/``ConstantOfShape`` on the dynamic batch.
    """
    with _seeded():
        module = _Crnn()
    return _export(
        module,
        (torch.zeros(1, 1, 32, 64),),
        opset=11,
        input_names=["image"],
        output_names=["logits"],
        dynamic_axes={"image": {0: "batch", 3: "width"}, "logits": {0: "steps", 1: "batch"}},
    )


class _FpnDetector(nn.Module):
    """Three-stage backbone, FPN top-down path, shared heads on three levels."""

    def __init__(self, classes: int = 8, anchors: int = 3, width: int = 32) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.c3 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.lat1, self.lat2, self.lat3 = (
            nn.Conv2d(16, width, 1),
            nn.Conv2d(32, width, 1),
            nn.Conv2d(64, width, 1),
        )
        self.up = nn.ConvTranspose2d(width, width, 2, stride=2)
        self.cls = nn.Conv2d(width, anchors * classes, 3, padding=1)
        self.box = nn.Conv2d(width, anchors * 4, 3, padding=1)
        self.classes = classes

    def _head(self, level: torch.Tensor, conv: nn.Module, size: int) -> torch.Tensor:
        out = conv(level).permute(0, 2, 3, 1)
        return out.reshape(out.shape[0], -1, size)

    def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        c1 = self.stem(image)
        c2 = self.c2(c1)
        c3 = self.c3(c2)
        p3 = self.lat3(c3)
        p2 = self.lat2(c2) + F.interpolate(p3, scale_factor=2.0, mode="nearest")
        p1 = self.lat1(c1) + self.up(p2)
        levels = (p1, p2, p3)
        scores = torch.cat([self._head(p, self.cls, self.classes) for p in levels], 1)
        boxes = torch.cat([self._head(p, self.box, 4) for p in levels], 1)
        return scores.sigmoid(), boxes


def fpn_detector() -> onnx.ModelProto:
    """A single-stage detector head (RetinaNet / YOLO / SSD-FPN style), opset 13.

    ``image`` (N, 3, H, W), all three dynamic → strided Conv/Relu backbone → FPN lateral
    1x1 ``Conv`` + top-down ``Resize`` (nearest ×2) + ``ConvTranspose`` upsampling →
    class/box ``Conv`` heads on three levels, each ``Transpose`` + ``Reshape`` (target
    built from ``Shape`` of the dynamic batch) → ``Concat`` → ``Sigmoid``.
    """
    with _seeded():
        module = _FpnDetector()
    return _export(
        module,
        (torch.zeros(1, 3, 64, 96),),
        opset=13,
        input_names=["image"],
        output_names=["scores", "boxes"],
        dynamic_axes={
            "image": {0: "batch", 2: "height", 3: "width"},
            "scores": {0: "batch", 1: "anchors"},
            "boxes": {0: "batch", 1: "anchors"},
        },
    )


class _SpeechModel(nn.Module):
    """Conv1d front-end over filterbank frames → 2-layer LSTM → GRU → character logits."""

    def __init__(self, mels: int = 40, hidden: int = 48, chars: int = 29) -> None:
        super().__init__()
        self.frontend = nn.Conv1d(mels, 64, 5, padding=2)
        self.lstm = nn.LSTM(64, hidden, num_layers=2, batch_first=True)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, chars)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.frontend(features.transpose(1, 2))).transpose(1, 2)  # (N, T, 64)
        x, _ = self.lstm(x)
        x, _ = self.gru(x)
        return self.fc(x)


def speech_lstm() -> onnx.ModelProto:
    """A streaming speech recogniser / keyword spotter (DeepSpeech-like), opset 14.

    ``features`` (N, T, 40) log-mel frames, dynamic batch and sequence length →
    ``Transpose`` + ``Conv`` (1-D) + ``Relu`` → two stacked ``LSTM`` layers → ``GRU`` →
    ``MatMul``/``Add`` classifier. batch_first RNNs export with ``Transpose`` around
    each RNN and ``Squeeze`` of the direction axis.
    """
    with _seeded():
        module = _SpeechModel()
    return _export(
        module,
        (torch.zeros(1, 20, 40),),
        opset=14,
        input_names=["features"],
        output_names=["logits"],
        dynamic_axes={"features": {0: "batch", 1: "frames"}, "logits": {0: "batch", 1: "frames"}},
    )


class _EncoderLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.q, self.k, self.v = (
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
        )
        self.proj = nn.Linear(hidden, hidden)
        self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.up, self.down = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)
        self.gelu = nn.GELU()

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        n, s, _ = x.shape
        return x.view(n, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask_bias: torch.Tensor) -> torch.Tensor:
        n, s, hidden = x.shape
        q, k, v = self._split(self.q(x)), self._split(self.k(x)), self._split(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + mask_bias
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(n, s, hidden)
        x = self.norm1(x + self.proj(context))
        return self.norm2(x + self.down(self.gelu(self.up(x))))


class _TinyBert(nn.Module):
    def __init__(
        self,
        vocab: int = 1000,
        hidden: int = 64,
        heads: int = 4,
        layers: int = 2,
        positions: int = 256,
    ) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(positions, hidden)
        self.segments = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.layers = nn.ModuleList(_EncoderLayer(hidden, heads, 2 * hidden) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        positions = torch.arange(input_ids.shape[1], dtype=torch.long).unsqueeze(0)
        x = (
            self.tokens(input_ids)
            + self.positions(positions)
            + self.segments(torch.zeros_like(input_ids))
        )
        x = self.norm(x)
        mask_bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x, torch.tanh(self.pooler(x[:, 0]))


def bert_encoder() -> onnx.ModelProto:
    """A BERT-style text encoder (HuggingFace BertModel export), opset 17.

    ``input_ids`` and ``attention_mask`` (N, S) int64, dynamic batch and sequence →
    token/position/segment ``Gather`` embeddings (positions from ``Range`` over the
    dynamic length) → ``LayerNormalization`` → two encoder layers of multi-head
    self-attention (``MatMul``, ``Reshape``/``Transpose`` head split, ``Div``, mask
    ``Add``, ``Softmax``) and a GELU feed-forward (exact GELU as ``Erf``/``Mul``/``Add``)
    → ``Tanh`` pooler on the first token.
    """
    with _seeded():
        module = _TinyBert()
    ids = torch.ones(1, 8, dtype=torch.long)
    return _export(
        module,
        (ids, torch.ones_like(ids)),
        opset=17,
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state", "pooler_output"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "sequence"},
            "last_hidden_state": {0: "batch", 1: "sequence"},
            "pooler_output": {0: "batch"},
        },
    )


class _KeywordSpotter(nn.Module):
    def __init__(self, mels: int = 40, hidden: int = 64, keywords: int = 12) -> None:
        super().__init__()
        self.lstm = nn.LSTM(mels, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, keywords)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        sequence, _ = self.lstm(features)
        return self.fc(sequence[:, -1])


class _MobileNetLike(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1),
            nn.ReLU6(),
            nn.Conv2d(16, 16, 3, 1, 1, groups=16),  # depthwise
            nn.ReLU6(),
            nn.Conv2d(16, 32, 1),  # pointwise
            nn.ReLU6(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.fc = nn.Linear(32, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(image))


def bert_encoder_int8() -> onnx.ModelProto:
    """:func:`bert_encoder` after ``onnxruntime.quantization.quantize_dynamic`` (int8).

    What a CPU-serving pipeline ships: every weight ``MatMul`` becomes
    ``DynamicQuantizeLinear`` + ``MatMulInteger`` + ``Cast``/``Mul`` rescaling, and the
    embedding tables become int8 ``Gather`` + ``DequantizeLinear``.
    """
    return _quantize_dynamic(bert_encoder(), {"MatMulInteger", "DynamicQuantizeLinear"})


def lstm_int8() -> onnx.ModelProto:
    """A dynamic-int8 keyword-spotting LSTM (onnxruntime ``quantize_dynamic``), opset 14.

    ``features`` (N, T, 40), dynamic batch and length → com.microsoft
    ``DynamicQuantizeLSTM`` (int8 weights, their scales and zero points as inputs) →
    last step ``Gather`` → ``MatMulInteger`` classifier.
    """
    with _seeded():
        module = _KeywordSpotter()
    model = _export(
        module,
        (torch.zeros(1, 20, 40),),
        opset=14,
        input_names=["features"],
        output_names=["keyword_logits"],
        dynamic_axes={"features": {0: "batch", 1: "frames"}, "keyword_logits": {0: "batch"}},
    )
    return _quantize_dynamic(model, {"DynamicQuantizeLSTM", "MatMulInteger"})


def cnn_int8() -> onnx.ModelProto:
    """A dynamic-int8 MobileNet-like classifier (``quantize_dynamic`` of Conv and MatMul).

    ``image`` (N, 3, 64, 64), dynamic batch → ``DynamicQuantizeLinear`` + ``ConvInteger``
    (regular, depthwise and pointwise) + ``Cast``/``Mul``/``Add`` rescaling + ``Clip``
    (ReLU6) → ``GlobalAveragePool`` → ``MatMulInteger`` classifier.
    """
    with _seeded():
        module = _MobileNetLike()
    model = _export(
        module,
        (torch.zeros(1, 3, 64, 64),),
        opset=13,
        input_names=["image"],
        output_names=["logits"],
        dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
    )
    return _quantize_dynamic(
        model, {"ConvInteger", "MatMulInteger"}, op_types_to_quantize=["Conv", "MatMul"]
    )


class _IterativeRefiner(nn.Module):
    """Refines features ``steps`` times (a data-dependent loop), then gates on the mean."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, image: torch.Tensor, steps: int) -> torch.Tensor:
        x = self.stem(image)
        y = x
        for _ in range(steps):
            y = torch.relu(self.conv(y)) + x
        # TorchScript turns this into an If node (a ternary would do too, less clearly).
        if bool(y.mean() > 0):  # noqa: SIM108
            y = y * 2.0
        else:
            y = torch.sigmoid(y)
        return y


def scripted_control_flow() -> onnx.ModelProto:
    """A ``torch.jit.script`` export with control flow (RAFT-like iterative refinement).

    ``image`` (N, 3, 32, 32), dynamic batch, and ``steps`` (int64 scalar) → ``Conv`` →
    ``Loop`` whose body runs ``Conv`` + ``Relu`` + ``Add`` (weights read from the outer
    graph) → ``ReduceMean`` + ``Greater`` → ``If`` (then: ``Mul``; else: ``Sigmoid``).
    """
    with _seeded():
        module = torch.jit.script(_IterativeRefiner())
    return _export(
        module,
        (torch.zeros(1, 3, 32, 32), 2),
        opset=13,
        input_names=["image", "steps"],
        output_names=["refined"],
        dynamic_axes={"image": {0: "batch"}},
    )


# ---------------------------------------------------------------------------------------
# Models built with onnx.helper.


def custom_domain_op() -> onnx.ModelProto:
    """A model with a vendor custom op (e.g. a TensorRT plugin or a custom CUDA kernel).

    ``image`` (N, 3, 64, 64), dynamic batch → ``Conv`` → ``my.custom:FancyActivation``
    (no schema anywhere, declared in ``opset_import``) → ``Conv`` → ``GlobalAveragePool``.
    Shape inference cannot see through the custom op, so only the first Conv is costed.
    """
    rng = np.random.default_rng(1)
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("FancyActivation", ["c1"], ["act"], domain="my.custom", alpha=0.5),
        helper.make_node("Conv", ["act", "w2"], ["c2"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("GlobalAveragePool", ["c2"], ["pooled"]),
    ]
    graph = helper.make_graph(
        nodes,
        "custom_domain",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 64, 64])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["N", 16, 1, 1])],
        initializer=[
            _weight(rng, "w1", 16, 3, 3, 3),
            _floats("b1", [0.0] * 16),
            _weight(rng, "w2", 16, 16, 3, 3),
        ],
    )
    return _helper_model(graph, {"": 13, "my.custom": 1})


def if_subgraph() -> onnx.ModelProto:
    """A model with an ``If`` whose branches hold real compute (dynamic-resolution exports).

    ``image`` (N, 3, 32, 32), dynamic batch → ``Conv`` → ``ReduceMean`` + ``Greater``
    (a data-dependent condition) → ``If``: the then-branch runs ``Conv`` (its weight a
    branch initializer) + ``Relu``; the else-branch runs a 1x1 ``Conv`` whose weight is a
    ``Constant`` node inside the branch (as the TorchScript exporter writes tensors made
    in a branch) + ``Sigmoid`` + ``Mul`` (SiLU). Both read the outer tensor. Then
    ``GlobalAveragePool``.
    """
    rng = np.random.default_rng(2)
    then_branch = helper.make_graph(
        [
            helper.make_node("Conv", ["stem", "w_then"], ["t1"], kernel_shape=[3, 3], pads=[1] * 4),
            helper.make_node("Relu", ["t1"], ["then_out"]),
        ],
        "then_branch",
        [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, ["N", 16, 32, 32])],
        initializer=[_weight(rng, "w_then", 16, 16, 3, 3)],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node(
                "Constant", [], ["w_else"], value=_weight(rng, "w_else", 16, 16, 1, 1)
            ),
            helper.make_node("Conv", ["stem", "w_else"], ["e1"], kernel_shape=[1, 1]),
            helper.make_node("Sigmoid", ["e1"], ["gate"]),
            helper.make_node("Mul", ["e1", "gate"], ["else_out"]),
        ],
        "else_branch",
        [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, ["N", 16, 32, 32])],
    )
    nodes = [
        helper.make_node("Conv", ["image", "w_stem"], ["stem"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("ReduceMean", ["stem"], ["mean"], keepdims=0),
        helper.make_node("Greater", ["mean", "zero"], ["cond"]),
        helper.make_node(
            "If", ["cond"], ["branch"], then_branch=then_branch, else_branch=else_branch
        ),
        helper.make_node("GlobalAveragePool", ["branch"], ["pooled"]),
    ]
    graph = helper.make_graph(
        nodes,
        "if_model",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 32, 32])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["N", 16, 1, 1])],
        initializer=[_weight(rng, "w_stem", 16, 3, 3, 3), _scalar("zero", 0.0)],
    )
    return _helper_model(graph, {"": 13})


def loop_subgraph() -> onnx.ModelProto:
    """A greedy-decoder-style ``Loop`` (seq2seq / TTS decoders exported with scripting).

    ``state`` (N, 32), dynamic batch → ``Loop`` of 4 steps (trip count and condition are
    initializers) whose body computes ``MatMul`` (outer weight) + ``Add`` + ``Tanh``,
    carries the state and emits it as a scan output → ``MatMul`` projection of the
    final state.
    """
    rng = np.random.default_rng(3)
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["h_in", "w_rec"], ["mm"]),
            helper.make_node("Add", ["mm", "b_rec"], ["pre"]),
            helper.make_node("Tanh", ["pre"], ["h_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["h_out"], ["h_scan"]),
        ],
        "decoder_step",
        [
            helper.make_tensor_value_info("iteration", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("h_in", TensorProto.FLOAT, ["N", 32]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("h_out", TensorProto.FLOAT, ["N", 32]),
            helper.make_tensor_value_info("h_scan", TensorProto.FLOAT, ["N", 32]),
        ],
    )
    nodes = [
        helper.make_node(
            "Loop", ["max_steps", "keep_going", "state"], ["final", "trajectory"], body=body
        ),
        helper.make_node("MatMul", ["final", "w_out"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "loop_model",
        [helper.make_tensor_value_info("state", TensorProto.FLOAT, ["N", 32])],
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10]),
            helper.make_tensor_value_info("trajectory", TensorProto.FLOAT, ["steps", "N", 32]),
        ],
        initializer=[
            numpy_helper.from_array(np.array(4, dtype=np.int64), "max_steps"),
            numpy_helper.from_array(np.array(True), "keep_going"),
            _weight(rng, "w_rec", 32, 32),
            _floats("b_rec", [0.0] * 32),
            _weight(rng, "w_out", 32, 10),
        ],
    )
    return _helper_model(graph, {"": 13})


def greedy_decoder_loop() -> onnx.ModelProto:
    """A greedy-search text decoder in a ``Loop`` whose token state grows each step.

    Imitates GPT-2 / seq2seq greedy-search exports (``BeamSearch``-free, scripted loop).
    ``tokens`` (N, T) int64 prompt and ``hidden`` (N, 32), dynamic batch and prompt
    length → ``Loop`` of 8 steps carrying both: the body takes the last token (``Gather``),
    embeds it (``Gather`` on the outer table), updates ``hidden`` with ``MatMul`` +
    ``Add`` + ``Tanh``, projects to the vocabulary (``MatMul``), picks ``ArgMax`` and
    appends it with ``Concat``: ``hidden`` keeps its shape, ``tokens`` grows by one.
    """
    rng = np.random.default_rng(6)
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["tokens_in", "last"], ["last_token"], axis=1),
            helper.make_node("Gather", ["embedding", "last_token"], ["embedded"]),
            helper.make_node("MatMul", ["hidden_in", "w_hidden"], ["recurrent"]),
            helper.make_node("Add", ["recurrent", "embedded"], ["pre"]),
            helper.make_node("Tanh", ["pre"], ["hidden_out"]),
            helper.make_node("MatMul", ["hidden_out", "w_vocab"], ["logits"]),
            helper.make_node("ArgMax", ["logits"], ["next_token"], axis=1, keepdims=1),
            helper.make_node("Concat", ["tokens_in", "next_token"], ["tokens_out"], axis=1),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "greedy_step",
        [
            helper.make_tensor_value_info("step", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("tokens_in", TensorProto.INT64, ["N", "length"]),
            helper.make_tensor_value_info("hidden_in", TensorProto.FLOAT, ["N", 32]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("tokens_out", TensorProto.INT64, ["N", "length_plus_1"]),
            helper.make_tensor_value_info("hidden_out", TensorProto.FLOAT, ["N", 32]),
        ],
        initializer=[numpy_helper.from_array(np.array(-1, dtype=np.int64), "last")],
    )
    graph = helper.make_graph(
        [
            helper.make_node(
                "Loop",
                ["max_new_tokens", "keep_going", "tokens", "hidden"],
                ["generated", "final_hidden"],
                body=body,
            )
        ],
        "greedy_decoder",
        [
            helper.make_tensor_value_info("tokens", TensorProto.INT64, ["batch", "prompt_length"]),
            helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", 32]),
        ],
        [
            helper.make_tensor_value_info(
                "generated", TensorProto.INT64, ["batch", "total_length"]
            ),
            helper.make_tensor_value_info("final_hidden", TensorProto.FLOAT, ["batch", 32]),
        ],
        initializer=[
            numpy_helper.from_array(np.array(8, dtype=np.int64), "max_new_tokens"),
            numpy_helper.from_array(np.array(True), "keep_going"),
            _weight(rng, "embedding", 100, 32),
            _weight(rng, "w_hidden", 32, 32),
            _weight(rng, "w_vocab", 32, 100),
        ],
    )
    return _helper_model(graph, {"": 13})


def channels_last() -> onnx.ModelProto:
    """A tf2onnx-converted Keras CNN: NHWC input, ``Transpose`` to NCHW, NHWC output.

    ``input_1`` (N, H, W, 3) with symbolic ``unk__`` batch, height and width →
    ``Transpose`` (0, 3, 1, 2) → ``Conv`` + ``Relu`` (×2, the second strided) →
    ``Transpose`` back to NHWC → ``ReduceMean`` over the spatial axes → ``MatMul`` +
    ``Add`` + ``Softmax``.
    """
    rng = np.random.default_rng(4)
    nodes = [
        helper.make_node("Transpose", ["input_1"], ["nchw"], perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["nchw", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node(
            "Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1] * 4, strides=[2, 2]
        ),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Transpose", ["r2"], ["nhwc"], perm=[0, 2, 3, 1]),
        helper.make_node("ReduceMean", ["nhwc"], ["pooled"], axes=[1, 2], keepdims=0),
        helper.make_node("MatMul", ["pooled", "w3"], ["mm"]),
        helper.make_node("Add", ["mm", "b3"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "tf2onnx",
        [
            helper.make_tensor_value_info(
                "input_1", TensorProto.FLOAT, ["unk__0", "unk__1", "unk__2", 3]
            )
        ],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["unk__0", 5])],
        initializer=[
            _weight(rng, "w1", 16, 3, 3, 3),
            _floats("b1", [0.0] * 16),
            _weight(rng, "w2", 32, 16, 3, 3),
            _floats("b2", [0.0] * 32),
            _weight(rng, "w3", 32, 5),
            _floats("b3", [0.0] * 5),
        ],
    )
    return _helper_model(graph, {"": 13})


OPSETS = (9, 11, 13, 15, 18)
"""The opsets :func:`small_cnn` is built at (each changes some operator signature)."""


def small_cnn(opset: int) -> onnx.ModelProto:
    """The same small CNN written for one opset, as exporters of that era emit it.

    ``x`` (N, 3, 32, 32), dynamic batch → ``Pad`` → ``Conv`` → ``BatchNormalization`` →
    ``Clip`` (ReLU6) → ``Split`` in two channel halves + ``Concat`` swapped (ShuffleNet)
    → ``MaxPool`` → ×2 upsampling → ``Conv`` → ``ReduceMean`` (keepdims) → ``Squeeze`` →
    ``Gemm`` → ``Unsqueeze`` → ``Softmax``. What changes with the opset:

    * ``Pad`` pads: attribute before 11, input from 11;
    * ``Clip`` min/max: attributes before 11, inputs from 11;
    * ``Split`` sizes: attribute before 13, input from 13, ``num_outputs`` at 18;
    * upsampling: ``Upsample`` with a scales input at 9, ``Resize`` with an (empty) roi
      input at 11, ``Resize`` with the roi omitted from 13;
    * ``Squeeze``/``Unsqueeze`` axes: attribute before 13, input from 13;
    * ``ReduceMean`` axes: attribute before 18, input from 18.

    Args:
        opset: the default-domain opset, one of :data:`OPSETS` (any of 9–18 works).
    """
    rng = np.random.default_rng(5)
    init = [
        _weight(rng, "w1", 16, 3, 3, 3),
        _floats("b1", [0.0] * 16),
        _floats("bn_scale", [1.0] * 16),
        _floats("bn_bias", [0.0] * 16),
        _floats("bn_mean", [0.0] * 16),
        _floats("bn_var", [1.0] * 16),
        _weight(rng, "w2", 24, 16, 3, 3),
        _weight(rng, "w_fc", 10, 24),
        _floats("b_fc", [0.0] * 10),
    ]
    nodes: list[onnx.NodeProto] = []
    # Pad: one pixel of zeros on every side.
    if opset < 11:
        nodes.append(helper.make_node("Pad", ["x"], ["padded"], pads=[0, 0, 1, 1, 0, 0, 1, 1]))
    else:
        init.append(_ints("pads", [0, 0, 1, 1, 0, 0, 1, 1]))
        nodes.append(helper.make_node("Pad", ["x", "pads"], ["padded"]))
    nodes += [
        helper.make_node("Conv", ["padded", "w1", "b1"], ["c1"], kernel_shape=[3, 3]),
        helper.make_node(
            "BatchNormalization", ["c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"]
        ),
    ]
    if opset < 11:
        nodes.append(helper.make_node("Clip", ["bn"], ["act"], min=0.0, max=6.0))
    else:
        init += [_scalar("clip_min", 0.0), _scalar("clip_max", 6.0)]
        nodes.append(helper.make_node("Clip", ["bn", "clip_min", "clip_max"], ["act"]))
    if opset < 13:
        nodes.append(helper.make_node("Split", ["act"], ["half_a", "half_b"], axis=1, split=[8, 8]))
    elif opset < 18:
        init.append(_ints("split", [8, 8]))
        nodes.append(helper.make_node("Split", ["act", "split"], ["half_a", "half_b"], axis=1))
    else:
        nodes.append(
            helper.make_node("Split", ["act"], ["half_a", "half_b"], axis=1, num_outputs=2)
        )
    nodes += [
        helper.make_node("Concat", ["half_b", "half_a"], ["shuffled"], axis=1),
        helper.make_node("MaxPool", ["shuffled"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
    ]
    init.append(_floats("scales", [1.0, 1.0, 2.0, 2.0]))
    if opset < 10:
        nodes.append(helper.make_node("Upsample", ["pooled", "scales"], ["up"], mode="nearest"))
    elif opset < 13:
        init.append(_floats("roi", []))
        nodes.append(
            helper.make_node("Resize", ["pooled", "roi", "scales"], ["up"], mode="nearest")
        )
    else:
        nodes.append(helper.make_node("Resize", ["pooled", "", "scales"], ["up"], mode="nearest"))
    nodes.append(helper.make_node("Conv", ["up", "w2"], ["c2"], kernel_shape=[3, 3], pads=[1] * 4))
    if opset < 18:
        nodes.append(helper.make_node("ReduceMean", ["c2"], ["mean"], axes=[2, 3], keepdims=1))
    else:
        init.append(_ints("reduce_axes", [2, 3]))
        nodes.append(helper.make_node("ReduceMean", ["c2", "reduce_axes"], ["mean"], keepdims=1))
    if opset < 13:
        nodes.append(helper.make_node("Squeeze", ["mean"], ["flat"], axes=[2, 3]))
    else:
        init.append(_ints("squeeze_axes", [2, 3]))
        nodes.append(helper.make_node("Squeeze", ["mean", "squeeze_axes"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", "w_fc", "b_fc"], ["fc"], transB=1))
    if opset < 13:
        nodes.append(helper.make_node("Unsqueeze", ["fc"], ["fc3"], axes=[1]))
    else:
        init.append(_ints("unsqueeze_axes", [1]))
        nodes.append(helper.make_node("Unsqueeze", ["fc", "unsqueeze_axes"], ["fc3"]))
    nodes.append(helper.make_node("Softmax", ["fc3"], ["probabilities"], axis=2))
    graph = helper.make_graph(
        nodes,
        f"small_cnn_opset{opset}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 1, 10])],
        initializer=init,
    )
    return _helper_model(graph, {"": opset})


def constant_of_shape_weights() -> onnx.ModelProto:
    """A Caffe2-converted CNN whose weights are ``ConstantOfShape`` nodes (IR 3, opset 9).

    Imitates ``onnx/backend/test/data/light/*.onnx``: each large weight is a
    ``ConstantOfShape`` of an int64 shape initializer; small per-channel parameters
    are initializers that, as IR 3 requires, are also listed as graph inputs. ``data_0``
    (1, 3, 64, 64) → ``Conv`` → ``BatchNormalization`` → scale/shift by ``Unsqueeze``-ed
    parameters (``Mul``, ``Add``) → ``Relu`` → ``MaxPool`` → ``Conv`` → ``Sum`` residual
    → ``GlobalAveragePool`` → ``Reshape`` → ``Gemm``.
    """
    filled = helper.make_tensor("fill", TensorProto.FLOAT, [1], [0.02])
    shapes = {"conv1_w": [16, 3, 3, 3], "conv2_w": [16, 16, 3, 3], "fc_w": [10, 16], "fc_b": [10]}
    params = ["bn_scale", "bn_bias", "bn_mean", "bn_var", "mul_w", "add_b"]
    init = [_ints(f"{name}__SHAPE", dims) for name, dims in shapes.items()]
    init += [
        _floats(name, [1.0 if name in ("bn_scale", "bn_var", "mul_w") else 0.0] * 16)
        for name in params
    ]
    init.append(_ints("flat_shape", [1, 16]))
    nodes = [
        helper.make_node("ConstantOfShape", [f"{name}__SHAPE"], [name], value=filled)
        for name in shapes
    ]
    nodes += [
        helper.make_node("Unsqueeze", ["mul_w"], ["mul_w4"], axes=[1, 2]),
        helper.make_node("Unsqueeze", ["add_b"], ["add_b4"], axes=[1, 2]),
        helper.make_node("Conv", ["data_0", "conv1_w"], ["r0"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node(
            "BatchNormalization", ["r0", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["r1"]
        ),
        helper.make_node("Mul", ["r1", "mul_w4"], ["r2"]),
        helper.make_node("Add", ["r2", "add_b4"], ["r3"]),
        helper.make_node("Relu", ["r3"], ["r4"]),
        helper.make_node("MaxPool", ["r4"], ["r5"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["r5", "conv2_w"], ["r6"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("Sum", ["r5", "r6"], ["r7"]),
        helper.make_node("GlobalAveragePool", ["r7"], ["r8"]),
        helper.make_node("Reshape", ["r8", "flat_shape"], ["r9"]),
        helper.make_node("Gemm", ["r9", "fc_w", "fc_b"], ["prob"], transB=1),
    ]
    inputs = [helper.make_tensor_value_info("data_0", TensorProto.FLOAT, [1, 3, 64, 64])]
    inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in init]
    graph = helper.make_graph(
        nodes,
        "caffe2_light",
        inputs,
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])],
        initializer=init,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)], ir_version=3)


def _small_cnn_at(opset: int) -> Callable[[], onnx.ModelProto]:
    def build() -> onnx.ModelProto:
        return small_cnn(opset)

    build.__name__ = build.__qualname__ = f"small_cnn_opset{opset}"
    build.__doc__ = f"``small_cnn({opset})``: see :func:`small_cnn`."
    return build


REALWORLD_BUILDERS: dict[str, Callable[[], onnx.ModelProto]] = {
    "crnn_ocr": crnn_ocr,
    "fpn_detector": fpn_detector,
    "speech_lstm": speech_lstm,
    "bert_encoder": bert_encoder,
    "bert_encoder_int8": bert_encoder_int8,
    "lstm_int8": lstm_int8,
    "cnn_int8": cnn_int8,
    "custom_domain_op": custom_domain_op,
    "if_subgraph": if_subgraph,
    "loop_subgraph": loop_subgraph,
    "scripted_control_flow": scripted_control_flow,
    "greedy_decoder_loop": greedy_decoder_loop,
    "channels_last": channels_last,
    **{f"small_cnn_opset{opset}": _small_cnn_at(opset) for opset in OPSETS},
    "constant_of_shape_weights": constant_of_shape_weights,
}
"""Name → builder of every real-world imitation."""

EXAMPLE_INPUT_SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    "crnn_ocr": {"image": (2, 1, 32, 160)},
    "fpn_detector": {"image": (2, 3, 256, 320)},
    "speech_lstm": {"features": (2, 300, 40)},
    "bert_encoder": {"input_ids": (2, 64), "attention_mask": (2, 64)},
    "bert_encoder_int8": {"input_ids": (2, 64), "attention_mask": (2, 64)},
    "lstm_int8": {"features": (2, 100, 40)},
    "cnn_int8": {"image": (2, 3, 64, 64)},
    "custom_domain_op": {"image": (2, 3, 64, 64)},
    "if_subgraph": {"image": (2, 3, 32, 32)},
    "loop_subgraph": {"state": (2, 32)},
    "scripted_control_flow": {"image": (2, 3, 32, 32)},
    "greedy_decoder_loop": {"tokens": (2, 5), "hidden": (2, 32)},
    "channels_last": {"input_1": (2, 96, 128, 3)},
    **{f"small_cnn_opset{opset}": {"x": (2, 3, 32, 32)} for opset in OPSETS},
}
"""Builder name → one concrete ``input_shapes`` override that fits its dynamic inputs."""
