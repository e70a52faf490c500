"""Errors of the store: the database cannot be reached, or a request does not fit it.

Both derive from :class:`nnlat.errors.NnlatError`, so the CLI prints their message and
exits non-zero::

    NnlatError
    └── StoreError                 a request the store cannot satisfy (unknown model, bad file)
        └── StoreUnavailableError  the database URL cannot be reached or opened
"""

from __future__ import annotations

from nnlat.errors import NnlatError


class StoreError(NnlatError):
    """A store request that cannot be satisfied; the message says what to do."""


class StoreUnavailableError(StoreError):
    """The database cannot be reached; the message names the URL (password masked)."""
