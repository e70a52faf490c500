"""Keras model → fully int8 TFLite flatbuffer, by TensorFlow's post-training quantisation.

PerfSAGE (§3.1) quantises every model "to INT8 for both weights and activations with the
TFLite post-training quantization tool", with untrained random weights. That is what
:func:`export_int8` does: weights are drawn by Keras' initialisers from ``seed``, the
activation ranges are calibrated on ``calibration_samples`` seeded standard-normal inputs,
and the converter is restricted to ``TFLITE_BUILTINS_INT8`` with int8 input and output, so a
model that cannot be fully quantised fails instead of silently keeping float operators.

The conversion is byte-for-byte deterministic for a builder and seed within one
TensorFlow version: Keras' name counters are reset (:func:`keras.backend.clear_session`)
before building, so tensor names do not depend on what was built earlier in the process.

TensorFlow is imported inside the functions: ``import nnlat.zoo`` never imports it.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from nnlat.errors import ExportError

if TYPE_CHECKING:
    import keras

# Few calibration batches suffice: the weights are random, so the ranges mean nothing
# beyond giving every tensor a valid int8 scale; more samples only cost export time.
CALIBRATION_SAMPLES = 4
WEIGHT_SEED = 0


def export_int8(
    build: Callable[[], keras.Model],
    input_shape: tuple[int, ...],
    *,
    seed: int = WEIGHT_SEED,
    calibration_samples: int = CALIBRATION_SAMPLES,
) -> bytes:
    """Build a Keras model and convert it to a fully int8 TFLite flatbuffer.

    Args:
        build: returns the (untrained) Keras model; called after the random seed is set,
            so its initial weights depend only on ``seed``.
        input_shape: the model's batch-1 input shape (NHWC for images), used for the
            calibration data.
        seed: seed of the weights and of the calibration data.
        calibration_samples: how many random inputs calibrate the activation ranges.

    Returns:
        The ``.tflite`` flatbuffer: int8 weights, activations, input and output (biases
        int32, as TFLite's int8 kernels require).

    Raises:
        ExportError: TensorFlow is not installed, or the converter could not quantise
            every operator to int8.
    """
    with _quiet_tensorflow():
        try:
            import keras
            import tensorflow as tf
        except ImportError as error:
            raise ExportError(
                f"TFLite export needs TensorFlow ({error.name} is missing); "
                "install it with: pip install 'nnlat[edge]'"
            ) from None
        import numpy as np

        keras.backend.clear_session()
        keras.utils.set_random_seed(seed)
        model = build()
        rng = np.random.default_rng(seed)
        calibration = [
            rng.standard_normal(input_shape).astype(np.float32) for _ in range(calibration_samples)
        ]
        # A traced concrete function converts in about half the time of
        # ``from_keras_model``, which first writes and re-reads a SavedModel.
        forward = tf.function(
            lambda x: model(x, training=False),
            input_signature=[tf.TensorSpec(input_shape, tf.float32)],
        )
        converter = tf.lite.TFLiteConverter.from_concrete_functions(
            [forward.get_concrete_function()]
        )
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = lambda: ([x] for x in calibration)
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
        try:
            with _stderr_to_devnull():
                flatbuffer: bytes = converter.convert()
        except Exception as error:  # the converter raises several unrelated types
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ExportError(
                f"TFLite int8 conversion of {model.name!r} failed: {first_line}; "
                "check that every layer has an int8 TFLite kernel"
            ) from error
        keras.backend.clear_session()
    return flatbuffer


@contextlib.contextmanager
def _quiet_tensorflow() -> Iterator[None]:
    """Silence TensorFlow's logging and Keras' prints while converting.

    The converter prints pages of MLIR diagnostics and Keras prints a saved-model notice
    to stdout per model; over thousands of models they bury every useful line, and on
    stdout they would corrupt the CLI's ``--json`` output. ``TF_CPP_MIN_LOG_LEVEL`` only
    takes effect before TensorFlow is first imported, and a user's own value is kept.
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import absl.logging

    previous = absl.logging.get_verbosity()
    absl.logging.set_verbosity(absl.logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            # "Statistics for quantized inputs were expected": the input's int8 scale
            # comes from calibration, which is what we want.
            warnings.simplefilter("ignore", UserWarning)
            yield
    finally:
        absl.logging.set_verbosity(previous)


@contextlib.contextmanager
def _stderr_to_devnull() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null: the converter's C++ code prints there directly.

    Its failures still arrive as Python exceptions with their message, so nothing that
    explains an error is lost.
    """
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
