"""``nnlat onboard``: describe a new platform, measure K models on it, adapt, save."""

from __future__ import annotations

from typing import Annotated

import typer

from nnlat.cli.output import print_json, spinner, stdout, user_errors


def onboard_command(
    platform: Annotated[
        str, typer.Option("--platform", "-p", help="The platform to onboard (a Vela NPU).")
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
    directory ($NNLAT_ONBOARD_DIR, else the user data directory's onboarded/). Vela
    (Ethos-U) platforms only: a CPU platform would need its workloads timed.
    """
    from nnlat.predictor.onboard import onboard, saved_path

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
