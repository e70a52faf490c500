"""Runtimes nnlat can time models on, one module each, registered by name.

Importing this package imports no runtime: each backend imports its runtime inside its
methods, so listing backends is cheap and a missing runtime only makes that backend
unavailable.
"""

from nnlat.measure.backends.base import (
    Availability,
    Backend,
    BackendUnavailableError,
    Prepared,
    RunResult,
    graph_for,
)
from nnlat.measure.backends.registry import BackendFactory, backend_registry, get_backend

__all__ = [
    "Availability",
    "Backend",
    "BackendFactory",
    "BackendUnavailableError",
    "Prepared",
    "RunResult",
    "backend_registry",
    "get_backend",
    "graph_for",
]
