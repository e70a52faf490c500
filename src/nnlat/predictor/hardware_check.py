"""Was a head's data measured on this host's hardware? Two machines can share a platform name.

A platform name says the hardware only by a slug of the CPU model (``epyc``). Behind one
slug two virtual machines may still time differently: the reference data's EPYC exposed
AVX-512, a later EPYC of the same family, model and caches hid it from its guests, and the
same models ran a median 1.27× slower there (``docs/runtimes.md``). The measurement
environment records a hardware fingerprint (:func:`nnlat.measure.environment.detect_hardware`:
model, cores, caches, ISA flags), and a trained predictor keeps, per platform, the
fingerprints its records came from (``info["hardware"]``). When the head about to answer
for this host's own hardware knows other fingerprints only, the user is told.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from nnlat.platform import parse_platform_name

HARDWARE_KEY = "hardware"
"""Where a predictor's ``info`` keeps ``{platform: [fingerprint, ...]}``."""


def fingerprints_by_platform(pairs: Iterable[tuple[str, str | None]]) -> dict[str, list[str]]:
    """``{platform: sorted fingerprints}`` from ``(platform, fingerprint)`` pairs; unknown
    fingerprints (None) are left out, and so is a platform with none known.

    Example:
        >>> fingerprints_by_platform([("a-ort1.0-fp32-t1", "f1"), ("a-ort1.0-fp32-t1", None),
        ...                           ("a-ort1.0-fp32-t1", "f0"), ("b-ort1.0-fp32-t1", None)])
        {'a-ort1.0-fp32-t1': ['f0', 'f1']}
    """
    seen: dict[str, set[str]] = {}
    for platform, fingerprint in pairs:
        if fingerprint:
            seen.setdefault(platform, set()).add(fingerprint)
    return {platform: sorted(found) for platform, found in sorted(seen.items())}


def same_hardware(
    info: Mapping[str, Any], head: str, host_hardware: str, host_fingerprint: str
) -> bool | None:
    """Whether the data of ``head`` were measured on this host's hardware.

    None when the question does not arise or cannot be answered: the head is of other
    hardware than this host (a cross-hardware answer is already announced by the platform
    match), or the predictor does not record its fingerprints (trained before they were).

    Args:
        info: the predictor's ``info``.
        head: the platform whose head answers.
        host_hardware: this host's hardware slug (``HardwareInfo.hardware``).
        host_fingerprint: this host's fingerprint (``HardwareInfo.fingerprint``).

    Example:
        >>> info = {"hardware": {"epyc-ort1.32-fp32-t1": ["372d0e50a005"]}}
        >>> same_hardware(info, "epyc-ort1.32-fp32-t1", "epyc", "3bbef0a018b6")
        False
        >>> same_hardware(info, "epyc-ort1.32-fp32-t1", "epyc", "372d0e50a005")
        True
        >>> same_hardware(info, "epyc-ort1.32-fp32-t1", "xeon8375c", "1234") is None
        True
    """
    if parse_platform_name(head).get("hardware") != host_hardware:
        return None
    known = info.get(HARDWARE_KEY, {}).get(head)
    if not known:
        return None
    return host_fingerprint in known


def other_hardware_warning(head: str, info: Mapping[str, Any], host_fingerprint: str) -> str:
    """The warning for a head measured on other machines of this host's name.

    Example:
        >>> info = {"hardware": {"epyc-ort1.32-fp32-t1": ["372d0e50a005"]}}
        >>> other_hardware_warning("epyc-ort1.32-fp32-t1", info, "3bbef0a018b6")[:60]
        'the epyc-ort1.32-fp32-t1 head was measured on other hardware'
    """
    known = ", ".join(info.get(HARDWARE_KEY, {}).get(head, []))
    return (
        f"the {head} head was measured on other hardware of the same name (fingerprint "
        f"{known}; this host: {host_fingerprint}): another CPU generation, or features a "
        "hypervisor hides (AVX-512), change every latency, by tens of percent or more "
        f"(2.1× on one EPYC); `nnlat onboard -p {head}` times 3 models here and scales the "
        f"head to this host (seconds); `nnlat query MODEL -p {head}` measures a model here"
    )
