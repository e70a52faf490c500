"""Figures published by the papers a study reproduces, kept as data beside the code.

Each study's published figures are one JSON file under ``studies/published/``: an
``about`` line saying where they come from, and ``figures``, one object per published
value set. :func:`published_figures` is the one reader.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from nnlat.errors import NnlatError


def published_figures(study: str) -> list[dict[str, Any]]:
    """The published figures of ``study`` (the stem of a file in ``studies/published/``).

    Example:
        >>> published_figures("few_shot")[0]
        {'shots': 3, 'who': 'MAPLE', 'acc_10': 0.87, 'spearman': None}

    Raises:
        NnlatError: no figures are kept for ``study``.
    """
    path = resources.files("nnlat.studies") / "published" / f"{study}.json"
    if not path.is_file():
        raise NnlatError(f"no published figures for study {study!r}")
    figures: list[dict[str, Any]] = json.loads(path.read_text())["figures"]
    return figures
