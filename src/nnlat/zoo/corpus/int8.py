"""Corpus models after onnxruntime's int8 quantization (the ``int8-dynamic`` and ``int8-qdq``
families).

What CPU-serving pipelines ship after ``onnxruntime.quantization``:

- ``int8-dynamic`` — ``quantize_dynamic``: weight ``MatMul``/``Gemm`` become
  ``DynamicQuantizeLinear`` + ``MatMulInteger`` (+ rescaling ``Cast``/``Mul``), ``Conv``
  becomes ``ConvInteger``, ``LSTM`` becomes ``DynamicQuantizeLSTM``, embedding ``Gather``
  an int8 table; per-tensor or per-channel, reduced range or not, int8 or uint8 weights;
- ``int8-qdq`` — ``quantize_static`` with seeded random calibration data: the QDQ format
  (``QuantizeLinear``/``DequantizeLinear`` around every quantized op, as TensorRT and
  mobile runtimes take it) or the operator format (``QLinearConv``, ``QLinearMatMul``,
  ``QLinearAdd``...), uint8 or int8 activations.

A configuration names a base family of the corpus and one of its configurations (drawn
with the same seeded generator), so the float model is rebuilt exactly and quantized
again; sizes are the base family's. Random calibration gives scales unlike a trained
model's, which changes values but not the graph or the kernels that run.
"""

from __future__ import annotations

import importlib
import random
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnx

from nnlat.errors import ExportError
from nnlat.zoo.family import Config, Family

# Base families (module under nnlat.zoo.corpus → family) whose float models are quantized.
DYNAMIC_BASES = {
    "hf_text": "hf-text",
    "hf_vision": "hf-vision",
    "hf_speech": "hf-speech",
    "ocr": "ocr-crnn",
    "audio_frontend": "audio-frontend",
    "detector": "det-head",
}
STATIC_BASES = {
    "hf_text": "hf-text",
    "hf_vision": "hf-vision",
    "ocr": "ocr-crnn",
    "audio_frontend": "audio-frontend",
    "detector": "det-head",
}
CALIBRATION_SAMPLES = 4


def _base_family(module: str) -> Family:
    return importlib.import_module(f"nnlat.zoo.corpus.{module}").FAMILY


def _draw_base(rng: random.Random, bases: dict[str, str]) -> Config:
    module = rng.choice(sorted(bases))
    return {"base": module, "base_config": _base_family(module).sample(rng)}


def sample_dynamic(rng: random.Random) -> Config:
    """Draw a base model and ``quantize_dynamic`` options.

    Example:
        >>> sample_dynamic(random.Random(0))["weight_type"] in ("QInt8", "QUInt8")
        True
    """
    config = _draw_base(rng, DYNAMIC_BASES)
    return {
        **config,
        **draw_dynamic_options(rng),
        "num_classes": config["base_config"]["num_classes"],
    }


def draw_dynamic_options(rng: random.Random) -> Config:
    """``quantize_dynamic``'s options: the op types it quantizes, per-channel, reduced
    range, weight type.

    Example:
        >>> sorted(draw_dynamic_options(random.Random(0)))
        ['op_types', 'per_channel', 'reduce_range', 'weight_type']
    """
    ops = [
        op for op in ("MatMul", "Gemm", "Conv", "LSTM", "Gather", "Attention") if rng.random() < 0.7
    ]
    return {
        "op_types": ops or ["MatMul"],
        "per_channel": rng.random() < 0.5,
        "reduce_range": rng.random() < 0.3,
        "weight_type": rng.choice(["QInt8", "QUInt8"]),
    }


def sample_static(rng: random.Random) -> Config:
    """Draw a base model and ``quantize_static`` options (format, types, per-channel).

    Example:
        >>> sample_static(random.Random(0))["format"] in ("QDQ", "QOperator")
        True
    """
    config = _draw_base(rng, STATIC_BASES)
    return {
        **config,
        "format": rng.choice(["QDQ", "QDQ", "QOperator"]),
        "per_channel": rng.random() < 0.5,
        "activation_type": rng.choice(["QUInt8", "QInt8"]),
        "weight_type": "QInt8",
        "seed": 0,
        "num_classes": config["base_config"]["num_classes"],
    }


def _float_model(config: Config) -> onnx.ModelProto:
    family = _base_family(config["base"])
    return family.model(config["base_config"]).to_onnx()


def _random_feeds(model: onnx.ModelProto, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One calibration sample: floats in [0, 1), ids 1..49, masks of ones (static shapes)."""
    feeds = {}
    for value in model.graph.input:
        t = value.type.tensor_type
        shape = [d.dim_value or 1 for d in t.shape.dim]
        if t.elem_type == onnx.TensorProto.INT64:
            mask = "mask" in value.name
            feeds[value.name] = (
                np.ones(shape, np.int64) if mask else rng.integers(1, 50, shape, dtype=np.int64)
            )
        else:
            feeds[value.name] = rng.random(shape, dtype=np.float32)
    return feeds


def quantize(config: Config, dynamic: bool) -> onnx.ModelProto:
    """The base model of ``config``, rebuilt, then quantized dynamically or statically.

    Raises:
        ExportError: the quantizer failed (the campaign then skips the configuration).
    """
    return quantize_model(_float_model(config), config, dynamic)


def quantize_model(model: onnx.ModelProto, config: Config, dynamic: bool) -> onnx.ModelProto:
    """``model`` quantized with the options of ``config`` (as :func:`sample_dynamic` or
    :func:`sample_static` draw them; the base keys are not read).

    Raises:
        ExportError: the quantizer failed (the campaign then skips the configuration).
    """
    from onnxruntime import quantization as q

    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source, target = Path(folder) / "float.onnx", Path(folder) / "int8.onnx"
        onnx.save(model, source)
        try:
            if dynamic:
                q.quantize_dynamic(
                    source,
                    target,
                    op_types_to_quantize=config["op_types"],
                    per_channel=config["per_channel"],
                    reduce_range=config["reduce_range"],
                    weight_type=getattr(q.QuantType, config["weight_type"]),
                )
            else:
                rng = np.random.default_rng(config["seed"])
                samples = [_random_feeds(model, rng) for _ in range(CALIBRATION_SAMPLES)]
                q.quantize_static(
                    source,
                    target,
                    _reader(q.CalibrationDataReader, samples),
                    quant_format=getattr(q.QuantFormat, config["format"]),
                    per_channel=config["per_channel"],
                    activation_type=getattr(q.QuantType, config["activation_type"]),
                    weight_type=getattr(q.QuantType, config["weight_type"]),
                )
        except Exception as exc:  # the quantizer raises many unrelated types
            last = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
            raise ExportError(f"onnxruntime could not quantize the model: {last}") from exc
        quantized = onnx.load(target)
    try:  # per-channel QDQ below opset 13 gives an axis attribute the opset lacks
        onnx.checker.check_model(quantized)
    except onnx.checker.ValidationError as exc:
        last = (str(exc).strip().splitlines() or ["invalid model"])[0]
        raise ExportError(f"the quantized model is not valid ONNX: {last}") from exc
    return quantized


def _reader(base: type, samples: list[dict[str, np.ndarray]]) -> object:
    """A calibration data reader over ``samples`` (``base``: onnxruntime's reader class,
    imported only when a model is quantized)."""

    class Reader(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.samples = iter(samples)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.samples, None)

    return Reader()


def input_shape(config: Config) -> tuple[int, ...]:
    """The base model's input shape."""
    family = _base_family(config["base"])
    return tuple(family.input_shape(config["base_config"]))
