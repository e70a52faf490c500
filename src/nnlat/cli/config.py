"""The ``NNLAT_*`` settings as the CLI reads them: once, at start, with one-line errors.

The server reads its :class:`~nnlat.settings.Settings` when it starts; the commands that
load a model (``inspect``, ``query``, ``predict``) read the same limits on untrusted
models from the same variables, so ``NNLAT_MAX_NODES=1000`` refuses the same models in
both (``query`` and ``predict``: see :func:`check_configured_limits` for raised limits).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nnlat.errors import NnlatError
from nnlat.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from nnlat.settings import Settings

_LIMIT_VARIABLES = frozenset(f"NNLAT_{name.upper()}" for name in Limits.__dataclass_fields__)


class SettingsError(NnlatError):
    """An ``NNLAT_*`` variable (or the option that overrides it) has an invalid value."""


def read_settings(**overrides: Any) -> Settings:
    """:class:`~nnlat.settings.Settings` from the environment, ``overrides`` on top.

    Raises:
        SettingsError: a value is invalid; the message names the variable (one line,
            where pydantic's own runs over four).

    Example:
        >>> read_settings(max_nodes=500).max_nodes
        500
        >>> read_settings(max_nodes=-1)
        Traceback (most recent call last):
        ...
        nnlat.cli.config.SettingsError: NNLAT_MAX_NODES=-1: Input should be greater than 0
    """
    from pydantic import ValidationError

    from nnlat.settings import Settings

    try:
        return Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "_".join(str(part) for part in first["loc"]).upper()
        raise SettingsError(f"NNLAT_{name}={first['input']}: {first['msg']}") from None


def configured_limits() -> Limits:
    """The limits on untrusted models that the ``NNLAT_*`` variables set (as the server's).

    Raises:
        SettingsError: a variable has an invalid value.

    Example:
        >>> configured_limits().max_nodes > 0
        True
    """
    # Settings (pydantic-settings) costs ~80 ms of start-up to import: with none of the
    # variables set, the defaults are what it would return. Names match in any case,
    # as pydantic-settings matches them.
    if not _LIMIT_VARIABLES & {name.upper() for name in os.environ}:
        return DEFAULT_LIMITS
    return read_settings().limits()


def check_configured_limits(
    models: Iterable[Path],
    batch_size: int | None,
    input_shapes: Mapping[str, Sequence[int]],
) -> None:
    """Refuse models over limits the ``NNLAT_*`` variables set lower than the defaults.

    ``query`` and ``predict`` load each model inside the library, under the default
    limits: where the user set others, each model is first loaded under those (a load
    costs ~0.1 s for a ResNet-50; nothing is loaded when the limits are the defaults).
    Limits set higher than the defaults do not reach that second load.

    Raises:
        SettingsError: a variable has an invalid value.
        NnlatError: a model is over the configured limits, or cannot be loaded.
    """
    limits = configured_limits()
    if limits == DEFAULT_LIMITS:
        return
    from nnlat.graph.load import load

    for model in models:
        load(model, batch_size=batch_size, input_shapes=input_shapes, limits=limits)
