"""Checks of what a user typed, before any work: model files that are not ONNX, platform typos.

Each failure is an :class:`~nnlat.errors.NnlatError` whose one line says what to do.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from nnlat.errors import ModelLoadError, NnlatError

# Suffixes of other frameworks' model files, and how to get ONNX from each.
_PYTORCH = (".pt", ".pth", ".ckpt", ".bin", ".safetensors")
_TENSORFLOW = (".pb", ".h5", ".keras")
_EXPORT_PYTORCH = (
    "a PyTorch file is weights, not a graph: export the module to ONNX first, e.g. "
    "`nnlat export net.py::Net -o model.onnx -i input=1x3x224x224`"
)
_EXPORT_TENSORFLOW = (
    "export it to ONNX first: `pip install tf2onnx` then "
    "`python -m tf2onnx.convert --saved-model DIR --output model.onnx`"
)


class OptionError(NnlatError):
    """Options that do not go together (one line, unlike click's usage boxes)."""


def check_model_file(path: Path) -> None:
    """Refuse, with the command that helps, a path that cannot be an ONNX model file.

    A missing path and a real ``.onnx`` file pass (the loader reports what is wrong
    with them); directories and other frameworks' files get an "export to ONNX" hint.

    Raises:
        ModelLoadError: a directory, a PyTorch file, or a TensorFlow model.

    Example:
        >>> check_model_file(Path("model.onnx"))  # missing: left to the loader
        >>> check_model_file(Path("net.pth"))
        Traceback (most recent call last):
        ...
        nnlat.errors.ModelLoadError: net.pth: a PyTorch file is weights, not a graph: ...
    """
    suffix = path.suffix.lower()
    if path.is_dir():
        if (path / "saved_model.pb").exists():
            raise ModelLoadError(f"{path} is a TensorFlow SavedModel: {_EXPORT_TENSORFLOW}")
        onnx_files = sorted(p.name for p in path.glob("*.onnx"))[:3]
        hint = f" (it holds {', '.join(onnx_files)}, ...)" if onnx_files else ""
        raise ModelLoadError(f"{path} is a directory; give one .onnx file{hint}")
    if suffix in _PYTORCH:
        raise ModelLoadError(f"{path}: {_EXPORT_PYTORCH}")
    if suffix in _TENSORFLOW:
        raise ModelLoadError(f"{path} is a TensorFlow/Keras model: {_EXPORT_TENSORFLOW}")


def suggest(name: str, known: Iterable[str], what: str = "platform") -> str:
    """``did you mean 'x'?`` for the closest known names, or an empty string.

    Example:
        >>> suggest("epyc-ort1.32-fp32-t", ["epyc-ort1.32-fp32-t1", "xeon-ov-fp32"])
        "did you mean 'epyc-ort1.32-fp32-t1'?"
    """
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    if not close:
        return ""
    return "did you mean " + " or ".join(repr(c) for c in close) + "?"
