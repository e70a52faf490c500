"""Platform: the hardware + runtime (+ version) + precision + threads a latency belongs to.

A platform's name reads ``hardware-runtimeMAJOR.MINOR-dtype[-tN]``, e.g.
``epyc-ort1.31-fp32-t1``. The full identity (exact runtime version, device) is kept in
the object, so numbers from different runtime versions are never mixed.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from nnlat.errors import NnlatError

DTYPES = ("fp32", "fp16", "int8")
_NAME = re.compile(
    r"^(?P<hardware>[a-z0-9_.]+)-(?P<runtime>[a-z]+)(?P<version>\d+\.\d+)-(?P<dtype>[a-z0-9]+)"
    r"(?:-t(?P<threads>\d+))?$"
)


class UnknownPlatformError(NnlatError):
    """A platform name that does not parse or is not known."""


class Platform(BaseModel):
    """Where a latency is measured.

    Attributes:
        hardware: a short slug of the device, e.g. ``"epyc"``, ``"xeon8375c"``, ``"h100"``.
        runtime: the inference runtime: ``"ort"``, ``"openvino"``, ``"torch"``.
        runtime_version: its full version, e.g. ``"1.31.1"``.
        dtype: the precision the model runs in: ``"fp32"``, ``"fp16"``, ``"int8"``.
        threads: intra-op threads, or None for the runtime's default.
        device: ``"cpu"`` or ``"cuda"``.

    Example:
        >>> p = Platform(hardware="epyc", runtime="ort", runtime_version="1.31.1",
        ...              dtype="fp32", threads=1)
        >>> p.name
        'epyc-ort1.31-fp32-t1'
    """

    model_config = ConfigDict(frozen=True)

    hardware: str = Field(pattern=r"^[a-z0-9_.]+$")
    runtime: str = Field(pattern=r"^[a-z]+$")
    runtime_version: str
    dtype: str
    threads: int | None = Field(default=None, ge=1)
    device: str = "cpu"

    @property
    def name(self) -> str:
        """``hardware-runtimeMAJOR.MINOR-dtype[-tN]``."""
        major_minor = ".".join(self.runtime_version.split(".")[:2])
        suffix = f"-t{self.threads}" if self.threads else ""
        return f"{self.hardware}-{self.runtime}{major_minor}-{self.dtype}{suffix}"

    def __str__(self) -> str:
        return self.name


def parse_platform_name(name: str) -> dict[str, str | int | None]:
    """Split a platform name into its parts.

    Raises:
        UnknownPlatformError: the name does not read ``hardware-runtimeX.Y-dtype[-tN]``.

    Example:
        >>> parse_platform_name("epyc-ort1.31-fp32-t1")
        {'hardware': 'epyc', 'runtime': 'ort', 'version': '1.31', 'dtype': 'fp32', 'threads': 1}
    """
    match = _NAME.match(name)
    if match is None:
        raise UnknownPlatformError(
            f"{name!r} is not a platform name; names read hardware-runtimeX.Y-dtype[-tN], "
            "e.g. epyc-ort1.31-fp32-t1 (see `nnlat platforms`)"
        )
    parts: dict[str, str | int | None] = dict(match.groupdict())
    parts["threads"] = int(parts["threads"]) if parts["threads"] else None
    return parts
