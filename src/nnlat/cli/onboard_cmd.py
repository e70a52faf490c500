"""``nnlat onboard``: describe a new platform, measure K models on it, adapt, save."""

from __future__ import annotations

from typing import Annotated

import typer

from nnlat.cli.output import print_json, spinner, stdout, user_errors


def onboard_command(
    platform: Annotated[
        str,
        typer.Option(
            "--platform", "-p", help="The platform to onboard: a Vela NPU, or this host's CPU."
        ),
    ],
    shots: Annotated[
        int, typer.Option("--shots", "-k", min=1, help="How many models to measure on it.")
    ] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Onboard PLATFORM from K measurements; then `nnlat predict MODEL -p PLATFORM` works.

    Characterises the platform (workloads of one operator kind at two or three sizes
    estimated on it: a rate and a fixed time per operator, per kind), measures K models
    of nnlat's choice, fits the scale, and saves the result in the user's predictor
    directory ($NNLAT_ONBOARD_DIR, else the user data directory's onboarded/).

    For a CPU platform of this host (onnxruntime, OpenVINO, LiteRT) it times K published
    architectures here instead, on a core of its own if you give it one (`taskset`), and
    keeps one scale for the head that answers for the platform, for this machine's
    hardware fingerprint only: the way to use a predictor trained on another machine of
    the same name.
    """
    from nnlat.platform import parse_platform_name
    from nnlat.predictor.onboard import onboard, saved_path

    if parse_platform_name(platform).get("runtime") != "vela":
        _onboard_cpu(platform, shots, as_json)
        return

    with (
        user_errors(subject=platform),
        spinner(f"onboarding {platform} from {shots} models", quiet=as_json),
    ):
        result = onboard(platform, shots)
    saved = saved_path(platform)
    if as_json:
        print_json(
            {
                "platform": result.platform,
                "shots": result.shots,
                "shot_models": list(result.shot_models),
                "shot_ms": list(result.shot_ms),
                "scale": result.scale,
                "rates": result.rates,
                "overheads_ms": result.overheads,
                "seconds": result.seconds,
                "saved": str(saved),
            }
        )
        return
    stdout.print(
        f"onboarded [bold]{platform}[/] from {result.shots} models "
        f"({', '.join(result.shot_models)}) in {result.seconds:.1f} s; scale {result.scale:.2f}",
        highlight=False,
    )
    stdout.print(f"saved {saved}; now: nnlat predict MODEL -p {platform}", highlight=False)


def _onboard_cpu(platform: str, shots: int, as_json: bool) -> None:
    """`nnlat onboard` on a CPU platform: time K models here, scale the head, save."""
    from dataclasses import asdict

    from nnlat.predictor.calibrate import calibrate
    from nnlat.predictor.calibration import calibration_path

    with (
        user_errors(subject=platform),
        spinner(f"timing {shots} models on {platform}", quiet=as_json),
    ):
        result = calibrate(platform, shots)
    saved = calibration_path(platform, result.fingerprint)
    if as_json:
        print_json({**asdict(result), "saved": str(saved)})
        return
    pairs = ", ".join(
        f"{name} {ms:.2f} ms (predicted {p:.2f})"
        for name, ms, p in zip(result.shot_models, result.shot_ms, result.predicted_ms, strict=True)
    )
    stdout.print(
        f"onboarded [bold]{platform}[/] on this host ({result.fingerprint}) from "
        f"{len(result.shot_models)} models in {result.seconds:.1f} s: {pairs}; "
        f"the {result.head} head's scale here: {result.scale:.2f}",
        highlight=False,
    )
    stdout.print(f"saved {saved}; now: nnlat predict MODEL -p {platform}", highlight=False)
