"""A learned head's scale for this host, from K models timed here (`nnlat onboard`, CPUs).

A platform name names the hardware by a slug of the CPU model, so two machines can share
one: the reference data's EPYC exposed AVX-512 and a later EPYC of the same model hid it,
and the same 320 models ran a median 1.27× slower there (`reports/realworld/hardware/`).
The learned head still ranks models well on such a host; what it lacks is the host's
speed. Onboarding a CPU platform therefore times K well-known architectures here (the
measurement protocol of `nnlat query`), predicts them with the head that answers for the
platform, and keeps one scale, the median measured / predicted ratio, for this host's
hardware fingerprint. `nnlat predict -p PLATFORM` on this host then multiplies by it and
says so. On the 320 models above, one scale from 3 models took the reference latencies
from 20.6 to 10.4 % MAPE on the rest (from 10: 9.3 %).

A calibration is keyed by platform *and* fingerprint: it is about this machine, and
another machine of the same name does not inherit it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nnlat.errors import NnlatError

CALIBRATION_VERSION = 1
SHOT_ARCHITECTURES = (
    ("mobilenetv2", "mobilenet_v2"),
    ("resnet", "resnet18"),
    ("vit", "vit_ti_16"),
    ("squeezenet", "squeezenet1_1"),
    ("efficientnet", "efficientnet_b0"),
    ("seqnet", "crnn_rnn"),
    ("mobilenetv3", "mobilenet_v3_small"),
    ("googlenet", "googlenet"),
    ("mnasnet", "mnasnet1_0"),
    ("segnet", "unet_small"),
)
"""The K models of a CPU onboarding, in order: published architectures of the zoo's
canonical configurations, convolutional and attention ones mixed from the first three."""


@dataclass(frozen=True)
class Calibration:
    """One host's scale for the head that answers for ``platform``.

    Attributes:
        platform: the platform onboarded.
        head: the head that answered for it (``Prediction.served_by``).
        predictor: the predictor whose head it is (``Prediction.predictor``).
        fingerprint: this host's hardware fingerprint.
        scale: the median measured / predicted ratio of the shots.
        shot_models: the canonical architectures timed.
        shot_ms: their measured medians.
        predicted_ms: the head's predictions for them, before the scale.
        created: when (seconds since the epoch).
        seconds: how long onboarding took.
    """

    platform: str
    head: str
    predictor: str
    fingerprint: str
    scale: float
    shot_models: tuple[str, ...]
    shot_ms: tuple[float, ...]
    predicted_ms: tuple[float, ...]
    created: float
    seconds: float
    version: int = CALIBRATION_VERSION

    @property
    def note(self) -> str:
        """What a prediction says about the scale it carries.

        Example:
            >>> c = Calibration("p", "p", "nnlp:x", "f", 1.27, ("a", "b", "c"), (1, 2, 3),
            ...                 (1, 2, 3), 0.0, 1.0)
            >>> c.note
            '×1.27 from 3 models timed on this host (nnlat onboard)'
        """
        shots = len(self.shot_models)
        return f"×{self.scale:.2f} from {shots} models timed on this host (nnlat onboard)"


def calibration_path(platform: str, fingerprint: str, folder: Path | None = None) -> Path:
    """Where this host's calibration of ``platform`` lives (default folder: the user's
    onboarded predictors, :func:`nnlat.predictor.onboard.onboarded_dir`).

    Example:
        >>> calibration_path("epyc-ort1.32-fp32-t1", "3bbef0a018b6", Path("/x")).name
        'epyc-ort1.32-fp32-t1@3bbef0a018b6.json'
    """
    from nnlat.predictor.onboard import onboarded_dir

    return (folder or onboarded_dir()) / f"{platform}@{fingerprint}.json"


def load_calibration(
    platform: str, fingerprint: str, folder: Path | None = None
) -> Calibration | None:
    """The saved calibration of ``platform`` on the host ``fingerprint``, or None."""
    path = calibration_path(platform, fingerprint, folder)
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if data.get("version") != CALIBRATION_VERSION:
        raise NnlatError(
            f"{path} was saved in calibration format {data.get('version')}, this nnlat "
            f"reads {CALIBRATION_VERSION}: run `nnlat onboard -p {platform}` again"
        )
    for key in ("shot_models", "shot_ms", "predicted_ms"):
        data[key] = tuple(data[key])
    return Calibration(**data)


def shot_models(k: int) -> list[tuple[str, Any]]:
    """The first ``k`` of :data:`SHOT_ARCHITECTURES` as ``(name, ZooModel)``.

    Example:
        >>> [name for name, _ in shot_models(3)]
        ['mobilenet_v2', 'resnet18', 'vit_ti_16']
    """
    from nnlat.zoo.registry import get_family

    if not 1 <= k <= len(SHOT_ARCHITECTURES):
        raise NnlatError(f"shots must be 1 to {len(SHOT_ARCHITECTURES)}, not {k}")
    chosen = []
    for family_name, config_name in SHOT_ARCHITECTURES[:k]:
        family = get_family(family_name)
        chosen.append((config_name, family.model(dict(family.canonical[config_name]))))
    return chosen


def save_calibration(calibration: Calibration, folder: Path | None = None) -> Path:
    """Write ``calibration`` where :func:`load_calibration` finds it, whole or not at all."""
    path = calibration_path(calibration.platform, calibration.fingerprint, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(asdict(calibration), indent=2) + "\n")
    partial.replace(path)
    return path
