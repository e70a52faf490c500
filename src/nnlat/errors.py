"""Errors a user can cause, and the one warning category nnlat emits.

Every error raised because of user input derives from :class:`NnlatError`; its message
says what went wrong *and what to do*. The CLI prints that message and exits non-zero,
never a traceback. The tree::

    NnlatError
    ├── ModelLoadError          the file/bytes are not a loadable ONNX or TFLite model
    │   ├── ModelTooLargeError  over the configured size limit
    │   ├── ExternalDataError   external-data reference missing or outside the model folder
    │   ├── InvalidModelError   parses, but is not a valid model (checker, cycle, attribute)
    │   ├── LimitExceededError  over a resource limit (elements, nodes, depth, memory, time)
    │   └── UnsupportedOperatorError  an operator nnlat cannot convert (named)
    ├── InvalidInputShapeError  a --input-shape / batch-size override that does not fit
    ├── ExportError             a torch.nn.Module could not be exported to ONNX
    └── UnknownNameError        a registry lookup (model family, ...) with an unknown name
"""

from __future__ import annotations


class NnlatError(Exception):
    """Base class of every error a user can cause."""


class ModelLoadError(NnlatError):
    """The source is not a loadable ONNX model (bad file, truncated, empty graph)."""


class ModelTooLargeError(ModelLoadError):
    """The model file is larger than the configured limit."""


class ExternalDataError(ModelLoadError):
    """An external-data reference is missing or points outside the model's folder."""


class UnsupportedOperatorError(ModelLoadError):
    """The model uses an operator nnlat cannot convert to its IR; the message names it."""


class InvalidModelError(ModelLoadError):
    """The model parses but is not valid: the ONNX checker refuses it, it has a cycle,
    no outputs, an unknown dtype or a negative or absurd attribute."""


class LimitExceededError(ModelLoadError):
    """The model is over one of the :class:`~nnlat.limits.Limits` (its message names
    the limit, its value and the ``NNLAT_*`` variable that raises it)."""


class InvalidInputShapeError(NnlatError):
    """An input-shape or batch-size override does not fit the model."""


class ExportError(NnlatError):
    """A torch.nn.Module could not be exported to ONNX."""


class UnknownNameError(NnlatError, KeyError):
    """A name looked up in a registry is not registered.

    Inherits KeyError so ``except KeyError`` callers keep working, but prints as a sentence.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown name"


class NnlatWarning(UserWarning):
    """Something was assumed on the user's behalf (a dynamic dimension defaulted, ...)."""
