"""Public test helpers: tiny models built in a few lines, for tests and doc examples."""

from nnlat.testing.models import tiny_model

__all__ = ["tiny_model"]
