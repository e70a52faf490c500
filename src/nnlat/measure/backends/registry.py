"""The registry of backends: runtime name → factory. A new runtime is one file plus one line.

Factories, not instances, are registered so that building the registry imports no
runtime. The fake backend is not registered here: tests build their own registry with
it (see :func:`backend_registry`'s ``extra`` argument).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from nnlat.measure.backends.base import Backend
from nnlat.registry import Registry

BackendFactory = Callable[[], Backend]

# Runtime name → "module:class" of the real backends.
BACKEND_CLASSES = {
    "ort": "nnlat.measure.backends.onnxruntime:OrtBackend",
    "openvino": "nnlat.measure.backends.openvino:OpenVinoBackend",
    "torch": "nnlat.measure.backends.torch:TorchBackend",
    "litert": "nnlat.measure.backends.litert:LiteRtBackend",
    "vela": "nnlat.measure.backends.vela:VelaBackend",
}
# Runtime name → (class, arguments) of backends that are a configuration of another.
BACKEND_VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "litertbuiltin": ("nnlat.measure.backends.litert:LiteRtBackend", {"xnnpack": False}),
}


def _lazy_factory(target: str, **kwargs: Any) -> BackendFactory:
    module_name, _, class_name = target.partition(":")

    def factory() -> Backend:
        return getattr(importlib.import_module(module_name), class_name)(**kwargs)

    factory.__qualname__ = f"factory of {class_name}"
    return factory


def backend_registry(extra: Mapping[str, BackendFactory] | None = None) -> Registry[BackendFactory]:
    """A registry of the real backends, plus ``extra`` ones (e.g. the fake, in tests).

    Args:
        extra: more runtime name → factory entries.

    Returns:
        A new :class:`~nnlat.registry.Registry`; modifying it affects nobody else.

    Example:
        >>> backend_registry().names()
        ['litert', 'litertbuiltin', 'openvino', 'ort', 'torch', 'vela']
    """
    registry: Registry[BackendFactory] = Registry("backend")
    for name, target in BACKEND_CLASSES.items():
        registry.register(name, _lazy_factory(target))
    for name, (target, kwargs) in BACKEND_VARIANTS.items():
        registry.register(name, _lazy_factory(target, **kwargs))
    for name, factory in (extra or {}).items():
        registry.register(name, factory)
    return registry


def get_backend(name: str, registry: Registry[BackendFactory] | None = None) -> Backend:
    """A backend instance by runtime name.

    Raises:
        UnknownNameError: no such backend; the message lists the known ones.

    Example:
        >>> get_backend("ort").name
        'ort'
    """
    return (registry or backend_registry()).get(name)()
