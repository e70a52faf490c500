"""Platform: the hardware + runtime (+ version) + precision + threads a latency belongs to.

A platform's name reads ``hardware-runtimeMAJOR.MINOR-dtype[-tN]``, e.g.
``epyc-ort1.31-fp32-t1``. The full identity (exact runtime version, device) is kept in
the object, so numbers from different runtime versions are never mixed.

Learned things (a predictor's heads) are kept per platform too, so a runtime upgrade on
the same host (onnxruntime 1.31 → 1.32) gives a name none of them knows.
:func:`match_platform` says which known platform answers instead. Hardware, runtime
family, precision and threads shape latency most; a minor runtime upgrade rarely does.
The rule, in order:

1. the known platform with the exact name;
2. else one with the same hardware, runtime, precision and threads at the nearest runtime
   version;
3. else, only for a platform the caller did not name (this host's default), one with the
   same runtime, precision and threads on other hardware (nearest version);
4. else (an explicitly named platform with no match) an error offering the closest names.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class PlatformMatch:
    """The known platform chosen to answer for a requested one (see :func:`match_platform`).

    Attributes:
        requested: the platform asked for.
        head: the known platform that answers (``requested`` itself on an exact match).
        reason: ``"exact"``, ``"nearest runtime version"`` or ``"closest hardware"``.
    """

    requested: str
    head: str
    reason: str

    @property
    def exact(self) -> bool:
        """Whether the requested platform itself is known."""
        return self.reason == "exact"

    def warning(self, predictor: str = "PREDICTOR") -> str:
        """One line for the user when the answer is not the requested platform's own."""
        if self.reason == "nearest runtime version":
            return (
                f"no head for {self.requested}: the head of {self.head} (same hardware and "
                "runtime, nearest version) answers"
            )
        return (
            f"no head for this host's platform {self.requested}: the head of {self.head} "
            "(other hardware) answers, so expect a systematic error; `nnlat onboard -p "
            f"{self.requested}` times 3 models here and scales that head to this host "
            f"(seconds); for a head of its own, measure some models (`nnlat dataset build -p "
            f"{self.requested} -n 50`) and fine-tune (`nnlat train --from {predictor} -p "
            f"{self.requested} -o DIR`)"
        )


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in str(parse_platform_name(name)["version"]).split("."))


def _distance(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(abs(x - y) for x, y in zip(a, b, strict=True))


def _nearest(requested: str, candidates: list[str]) -> str:
    """The candidate whose runtime version is nearest; on a tie the newer one."""
    version = _version(requested)
    return min(
        candidates,
        key=lambda name: (_distance(_version(name), version), tuple(-v for v in _version(name))),
    )


def match_platform(
    requested: str, known: Sequence[str], *, explicit: bool = True, source: str = "PREDICTOR"
) -> PlatformMatch:
    """The platform of ``known`` that answers for ``requested`` (rules in the module doc).

    Args:
        requested: the platform name asked for.
        known: the platforms there are answers for, e.g. a predictor's heads.
        explicit: whether the caller named the platform (False: this host's default), which
            alone allows a platform of other hardware to answer.
        source: how the user names the predictor, for the command in the error message.

    Raises:
        UnknownPlatformError: ``requested`` does not parse, or names a platform none of
            ``known`` may answer for (the message offers the closest names).

    Example:
        >>> heads = ["epyc-ort1.31-fp32-t1", "xeon-ort1.31-fp32-t1"]
        >>> match_platform("epyc-ort1.32-fp32-t1", heads)
        PlatformMatch(requested='epyc-ort1.32-fp32-t1', head='epyc-ort1.31-fp32-t1', reason='nearest runtime version')
        >>> match_platform("zen5-ort1.32-fp32-t1", heads, explicit=False).reason
        'closest hardware'
    """  # noqa: E501
    if requested in known:
        return PlatformMatch(requested, requested, "exact")
    try:
        wanted = parse_platform_name(requested)
    except UnknownPlatformError as error:
        raise UnknownPlatformError(f"{error}{_did_you_mean(requested, known)}") from None

    def same(name: str, *fields: str) -> bool:
        parts = parse_platform_name(name)
        return all(parts[field] == wanted[field] for field in fields)

    valid = [name for name in known if _parses(name)]
    siblings = [n for n in valid if same(n, "hardware", "runtime", "dtype", "threads")]
    if siblings:
        return PlatformMatch(requested, _nearest(requested, siblings), "nearest runtime version")
    cousins = [n for n in valid if same(n, "runtime", "dtype", "threads")]
    if not explicit and cousins:
        return PlatformMatch(requested, _nearest(requested, cousins), "closest hardware")
    raise UnknownPlatformError(
        f"this predictor has no head for platform {requested!r}; it knows "
        f"{', '.join(known)}{_did_you_mean(requested, known)}. To add one, measure some "
        f"models on it and fine-tune: `nnlat train --from {source} -p {requested} -o DIR`"
    )


def _parses(name: str) -> bool:
    try:
        parse_platform_name(name)
    except UnknownPlatformError:
        return False
    return True


def _did_you_mean(requested: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(requested, list(known), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
