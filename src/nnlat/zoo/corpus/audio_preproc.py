"""``audio-preproc``: speech recognisers' feature extractors, shipped as graphs of their own.

Why: ASR packages ship the waveform → log-mel step as a separate ONNX file, written with
ONNX's own signal operators rather than exported from a network, and held-out set 8 showed
the predictor blind to them: ``onnx-asr``'s ``whisper128`` (22 nodes around the ``STFT``
operator on 30 s of padded audio, 125 ms measured, −89 %) and ``kaldi`` (frames cut by
``Scan`` loops, −77 %). ``audio-frontend`` computes its STFT as a convolution and is
always followed by a classifier, so no training graph had either operator.

Front-ends (``frontend``):

- ``stft``: ONNX's ``STFT`` on the (optionally reflect-padded) waveform, opsets 17–18;
- ``scan-dft``: frames cut by a ``Scan`` loop (one ``Slice`` per frame, the frame starts
  computed from the input's length with ``Shape``/``Div``/``Range``), optionally a second
  ``Scan`` over the frames (DC-offset removal and pre-emphasis, as Kaldi's fbank does),
  a window ``Mul``, then ONNX's one-sided ``DFT``, opsets 17–18;
- ``scan-matmul``: the same framing, the DFT as ``MatMul`` by cosine and sine matrices,
  opsets 13–18;
- ``conv``: the STFT as a strided ``Conv`` (``audio-frontend``'s), opsets 13–18.

Then the power (``ReduceSumSquare`` or ``Mul``/``Add``; optionally its square root), a mel
``MatMul``, a logarithm (natural, base 10, or Whisper's base 10 clamped to 8 decades of
its maximum and rescaled), optional per-band normalisation over time, and the layout
(frames × mels or mels × frames). Input ``waveform``: (1, samples) of 16 kHz audio, 1 to
30 s (Whisper's extractors pad to 30 s); FFT sizes 256–512, so that lengths that are not
powers of two (400: Bluestein's chirp transform in onnxruntime) are drawn too.

Example:
    >>> c = sample(random.Random(0))
    >>> c["frontend"] in FRONTENDS and c["samples"] % 16000 == 0
    True
"""

from __future__ import annotations

import math
import random

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.family import Config, Family

FRONTENDS = ("stft", "scan-dft", "scan-matmul", "conv")
# The lowest opset of each front-end: STFT and DFT exist from 17; the others need
# Slice/Pad/Unsqueeze with tensor inputs (13).
MIN_OPSET = {"stft": 17, "scan-dft": 17, "scan-matmul": 13, "conv": 13}
MAX_OPSET = 18
RATE = 16_000
EPS = 1e-10


def sample(rng: random.Random) -> Config:
    """Draw a front-end, its sizes (seconds, FFT, hop, mels) and its post-processing."""
    frontend = rng.choice(FRONTENDS)
    n_fft = rng.choice([256, 320, 400, 512])
    n_mels = rng.choice([40, 64, 80, 128])
    return {
        "frontend": frontend,
        "samples": RATE * rng.choice([1, 2, 5, 10, 20, 30]),
        "n_fft": n_fft,
        "hop": rng.choice([160, n_fft // 4, n_fft // 2]),
        "center": rng.random() < 0.5,
        "second_scan": frontend.startswith("scan") and rng.random() < 0.5,
        "power": rng.choice(["sum-square", "mul"]),
        "magnitude": rng.random() < 0.2,
        "n_mels": n_mels,
        "log": rng.choice(["ln", "log10", "whisper"]),
        "normalize": rng.random() < 0.3,
        "mels_first": rng.random() < 0.5,
        "opset": rng.randint(MIN_OPSET[frontend], MAX_OPSET),
        # a feature extractor has no classes; the key every corpus configuration has
        "num_classes": n_mels,
    }


class _Builder:
    """Collects nodes and initializers; each method returns its output's name."""

    def __init__(self, opset: int, prefix: str = "") -> None:
        self.opset, self.prefix = opset, prefix  # a body's names must differ from the graph's
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._count = 0

    def name(self, stem: str) -> str:
        self._count += 1
        return f"{self.prefix}{stem}_{self._count}"

    def const(self, value: np.ndarray, stem: str = "c") -> str:
        name = self.name(stem)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def i64(self, value: int | list[int]) -> str:
        """An int64 constant: a scalar, or a 1-D tensor from a list."""
        return self.const(np.array(value, np.int64))

    def f32(self, value: float) -> str:
        """A float32 scalar constant."""
        return self.const(np.float32(value))

    def op(self, op_type: str, *inputs: str, **attrs: object) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def reduce(self, op_type: str, x: str, axes: list[int], keepdims: int) -> str:
        """A reduction; its axes became an input at opset 18."""
        if self.opset >= 18:
            return self.op(op_type, x, self.i64(axes), keepdims=keepdims)
        return self.op(op_type, x, axes=axes, keepdims=keepdims)

    def reshape(self, x: str, shape: tuple[int, ...]) -> str:
        return self.op("Reshape", x, self.const(np.array(shape, np.int64), "shape"))

    def slice(self, x: str, start: int | str, end: int | str, axis: int) -> str:
        def bound(v: int | str) -> str:
            return self.i64([v]) if isinstance(v, int) else v

        axes = self.i64([axis])
        return self.op("Slice", x, bound(start), bound(end), axes)


def _hann(n: int) -> np.ndarray:
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(np.float32)


def _frames_by_scan(b: _Builder, wave: str, c: Config) -> str:
    """(1, samples) → (1, frames, n_fft): one ``Slice`` per frame inside a ``Scan``."""
    n_fft, hop = c["n_fft"], c["hop"]
    # the frame starts, from the input's length as the shipped graphs compute them
    length = b.op("Gather", b.op("Shape", wave), b.i64(1), axis=0)
    frames = b.op(
        "Add",
        b.op("Div", b.op("Sub", length, b.i64(n_fft)), b.i64(hop)),
        b.i64(1),
    )
    index = b.op("Range", b.i64(0), frames, b.i64(1))
    starts = b.op("Mul", index, b.i64(hop))

    body = _Builder(b.opset, "framing/")
    start = body.reshape("start", (1,))
    end = body.op("Add", start, body.i64([n_fft]))
    frame = body.slice("signal_in", start, end, axis=1)
    body.nodes.append(helper.make_node("Identity", ["signal_in"], ["signal_out"]))
    body.nodes.append(helper.make_node("Identity", [frame], ["frame"]))
    graph = helper.make_graph(
        body.nodes,
        "framing",
        [
            helper.make_tensor_value_info("signal_in", TensorProto.FLOAT, [1, None]),
            helper.make_tensor_value_info("start", TensorProto.INT64, []),
        ],
        [
            helper.make_tensor_value_info("signal_out", TensorProto.FLOAT, [1, None]),
            helper.make_tensor_value_info("frame", TensorProto.FLOAT, [1, n_fft]),
        ],
        body.inits,
    )
    carried, stacked = b.name("signal"), b.name("frames")
    b.nodes.append(
        helper.make_node("Scan", [wave, starts], [carried, stacked], body=graph, num_scan_inputs=1)
    )
    if c["second_scan"]:
        stacked = _per_frame_scan(b, stacked, n_fft)
    return b.op("Transpose", stacked, perm=[1, 0, 2])  # (frames, 1, n_fft) → (1, frames, n_fft)


def _per_frame_scan(b: _Builder, frames: str, n_fft: int) -> str:
    """A second ``Scan`` over the frames: remove each frame's mean, then pre-emphasis."""
    body = _Builder(b.opset, "per_frame/")
    centred = body.op("Sub", "frame_in", body.reduce("ReduceMean", "frame_in", [1], 1))
    previous = body.op(
        "Concat",
        body.slice(centred, 0, 1, axis=1),
        body.slice(centred, 0, n_fft - 1, axis=1),
        axis=1,
    )
    emphasised = body.op("Sub", centred, body.op("Mul", previous, body.f32(0.97)))
    body.nodes.append(helper.make_node("Identity", [emphasised], ["frame_out"]))
    graph = helper.make_graph(
        body.nodes,
        "per_frame",
        [helper.make_tensor_value_info("frame_in", TensorProto.FLOAT, [1, n_fft])],
        [helper.make_tensor_value_info("frame_out", TensorProto.FLOAT, [1, n_fft])],
        body.inits,
    )
    out = b.name("processed")
    b.nodes.append(helper.make_node("Scan", [frames], [out], body=graph, num_scan_inputs=1))
    return out


def _power(b: _Builder, real: str, imag: str | None, complex_last: str | None, c: Config) -> str:
    """|X|² from real and imaginary parts, or from a ``[..., 2]`` tensor."""
    if complex_last is not None and c["power"] == "sum-square":
        power = b.reduce("ReduceSumSquare", complex_last, [-1], 0)
    else:
        if complex_last is not None:
            real = b.reshape(b.slice(complex_last, 0, 1, axis=-1), (1, -1, c["n_fft"] // 2 + 1))
            imag = b.reshape(b.slice(complex_last, 1, 2, axis=-1), (1, -1, c["n_fft"] // 2 + 1))
        assert imag is not None
        power = b.op("Add", b.op("Mul", real, real), b.op("Mul", imag, imag))
    return b.op("Sqrt", power) if c["magnitude"] else power


def _spectrum(b: _Builder, wave: str, c: Config) -> str:
    """(1, samples) → (1, frames, bins): the front-end's power spectrum."""
    n_fft, hop, bins = c["n_fft"], c["hop"], c["n_fft"] // 2 + 1
    window = _hann(n_fft)
    if c["center"]:
        pads = b.i64([0, n_fft // 2, 0, n_fft // 2])
        wave = b.op("Pad", wave, pads, mode="reflect")
    frontend = c["frontend"]
    if frontend == "stft":
        signal = b.op("Unsqueeze", wave, b.i64([2]))
        spec = b.op(
            "STFT",
            signal,
            b.i64(hop),
            b.const(window),
            b.i64(n_fft),
            onesided=1,
        )
        return _power(b, "", None, spec, c)
    if frontend == "conv":
        t = np.arange(n_fft)
        angle = 2 * np.pi * np.arange(bins)[:, None] * t / n_fft
        kernels = np.concatenate([np.cos(angle) * window, -np.sin(angle) * window])
        out = b.op(
            "Conv",
            b.op("Unsqueeze", wave, b.i64([1])),
            b.const(kernels[:, None, :].astype(np.float32)),
            strides=[hop],
        )
        spec = b.op("Transpose", out, perm=[0, 2, 1])  # (1, frames, 2·bins)
        return _power(b, b.slice(spec, 0, bins, 2), b.slice(spec, bins, 2 * bins, 2), None, c)
    frames = b.op("Mul", _frames_by_scan(b, wave, c), b.const(window))
    if frontend == "scan-dft":
        spec = b.op("DFT", b.op("Unsqueeze", frames, b.i64([3])), axis=2, onesided=1)
        return _power(b, "", None, spec, c)
    angle = 2 * np.pi * np.arange(n_fft)[:, None] * np.arange(bins) / n_fft
    real = b.op("MatMul", frames, b.const(np.cos(angle).astype(np.float32)))
    imag = b.op("MatMul", frames, b.const(-np.sin(angle).astype(np.float32)))
    return _power(b, real, imag, None, c)


def _log_mel(b: _Builder, power: str, c: Config) -> str:
    """(1, frames, bins) → (1, frames, mels): mel MatMul, logarithm, normalisation."""
    bins = c["n_fft"] // 2 + 1
    rng = np.random.default_rng(0)  # stands in for a filter bank: same shape, same kernel
    mel = b.op("MatMul", power, b.const(rng.random((bins, c["n_mels"]), dtype=np.float32)))
    log = c["log"]
    if log == "ln":
        x = b.op("Log", b.op("Max", mel, b.f32(EPS)))
    else:
        x = b.op("Div", b.op("Log", b.op("Add", mel, b.f32(EPS))), b.f32(math.log(10)))
    if log == "whisper":
        floor = b.op("Sub", b.reduce("ReduceMax", x, [1, 2], 1), b.f32(8.0))
        x = b.op("Div", b.op("Add", b.op("Max", x, floor), b.f32(4.0)), b.f32(4.0))
    if c["normalize"]:
        centred = b.op("Sub", x, b.reduce("ReduceMean", x, [1], 1))
        variance = b.reduce("ReduceMean", b.op("Mul", centred, centred), [1], 1)
        x = b.op("Div", centred, b.op("Add", b.op("Sqrt", variance), b.f32(1e-5)))
    return b.op("Transpose", x, perm=[0, 2, 1]) if c["mels_first"] else x


def export(config: Config) -> onnx.ModelProto:
    """The configuration's feature extractor as an ONNX model (opset ``config["opset"]``).

    Example:
        >>> m = export(sample(random.Random(3)))
        >>> m.graph.input[0].name
        'waveform'
    """
    b = _Builder(config["opset"])
    features = _log_mel(b, _spectrum(b, "waveform", config), config)
    b.nodes.append(helper.make_node("Identity", [features], ["features"]))
    graph = helper.make_graph(
        b.nodes,
        f"audio_preproc_{config['frontend']}",
        [helper.make_tensor_value_info("waveform", TensorProto.FLOAT, [1, config["samples"]])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, None, None])],
        b.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", config["opset"])])
    model.ir_version = 8
    return onnx.shape_inference.infer_shapes(model)


FAMILY = Family(
    name="audio-preproc",
    summary="ASR feature extractors: STFT/DFT operators, Scan framing, conv STFT; mel, log",
    sample=sample,
    build=no_module,
    input_shape=lambda c: (1, c["samples"]),
    output_shape=lambda c: (1, c["n_mels"], -1) if c["mels_first"] else (1, -1, c["n_mels"]),
    export_onnx=export,
)
