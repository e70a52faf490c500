"""``nnlat query`` and ``nnlat platforms``: true latencies, measured once then cached."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.inspect_cmd import InputShapeOption
from nnlat.cli.output import parse_input_shapes, print_json, stdout, user_errors
from nnlat.cli.remote import ServerOption, TokenOption, client_of
from nnlat.platform import UnknownPlatformError, match_platform


class Target(StrEnum):
    """What ``nnlat query`` shows of a measurement."""

    latency = "latency"
    memory = "memory"
    energy = "energy"


def query_command(
    model: Annotated[Path, typer.Argument(help="An ONNX or TFLite file.")],
    platform: Annotated[
        str | None,
        typer.Option(
            "--platform",
            "-p",
            help="See `nnlat platforms`; default: this host's onnxruntime fp32 1-thread platform.",
        ),
    ] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", "-b", help="Batch size.")] = 1,
    input_shape: InputShapeOption = None,
    inputs: Annotated[
        Path | None, typer.Option("--inputs", help="Real inputs: an .npz with one array per input.")
    ] = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="Measure again.")] = False,
    max_time: Annotated[
        float, typer.Option("--max-time", help="Timing budget per measurement, seconds.")
    ] = 10.0,
    db: DbUrlOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    target: Annotated[
        Target,
        typer.Option(
            "--target",
            "-t",
            help="latency; memory (peak working memory: RSS growth on CPUs, SRAM on an NPU); "
            "energy (joules per inference, where the host has RAPL or NVML).",
        ),
    ] = Target.latency,
) -> None:
    """The latency, memory or energy of MODEL on PLATFORM: from the database, or measured
    now and stored.

    With --server the server answers: from its database, or by its device farm.
    """
    from nnlat.measure.types import MeasureSpec
    from nnlat.querying import QueryEngine
    from nnlat.store import Store

    shapes = parse_input_shapes(input_shape)
    with user_errors():
        if server is not None:
            if platform is None or inputs is not None:
                raise typer.BadParameter(
                    "with --server, give --platform (see `nnlat platforms --server URL`); "
                    "--inputs works only locally"
                )
            with client_of(server, token) as client:
                result = client.query(model, platform, batch_size, shapes, refresh=refresh)
        elif platform is None:
            from nnlat.measure.runner import reference_platform

            platform = reference_platform().name
        if server is None:
            with Store.open(db) as store:
                engine = QueryEngine(store, MeasureSpec(max_time_s=max_time))
                result = engine.query(
                    model, platform, batch_size, shapes, refresh=refresh, inputs=inputs
                )
    payload = result.to_dict()
    if as_json:
        print_json(payload)
        return
    source = "cached" if result.cached else "measured now"
    stdout.print(f"[bold]{model.name}[/] on [bold]{platform}[/] (batch {batch_size}, {source})")
    if payload["status"] != "ok":
        stdout.print(f"[red]{payload['status']}:[/] {payload['error']}", highlight=False)
        raise typer.Exit(1)
    if target is not Target.latency:
        _print_target(payload, target)
        return
    lat = payload["latency_ms"]
    if payload.get("deterministic"):
        stdout.print(f"estimate [bold]{lat['median']:.6f} ms[/] (deterministic: one exact value)")
        stdout.print(f"graph hash  {payload['graph_hash']}")
        return
    table = Table.grid(padding=(0, 2))
    table.add_row("median", f"[bold]{lat['median']:.3f} ms[/] ± {lat['median_ci95']:.3f} (95 % CI)")
    table.add_row("mean / std", f"{lat['mean']:.3f} / {lat['std']:.3f} ms (CV {lat['cv']:.1%})")
    table.add_row("p90 / p99 / min", f"{lat['p90']:.3f} / {lat['p99']:.3f} / {lat['min']:.3f} ms")
    table.add_row("runs", str(lat["n"]))
    if not payload["stable"]:
        table.add_row("[yellow]unstable[/]", "[yellow]high variation: rerun on a quiet machine[/]")
    if payload["peak_memory_bytes"] is not None:
        table.add_row("peak memory", f"{payload['peak_memory_bytes'] / 1e6:,.1f} MB")
    table.add_row("graph hash", payload["graph_hash"])
    stdout.print(table)


def _print_target(payload: dict[str, Any], target: Target) -> None:
    """Print the memory or energy of an ok result; exit 1 with the reason if it is missing."""
    if target is Target.memory:
        value = payload["peak_memory_bytes"]
        if value is None:
            stdout.print("[yellow]memory not measured[/] on this platform")
            raise typer.Exit(1)
        method = payload.get("memory_method") or "unknown method"
        stdout.print(f"peak memory [bold]{value:,} bytes[/] ({value / 2**20:,.2f} MiB; {method})")
        return
    value = payload.get("energy_j")
    if value is None:
        stdout.print(
            f"[yellow]energy not measured:[/] {payload.get('energy_note') or 'no reason given'}",
            highlight=False,
        )
        raise typer.Exit(1)
    stdout.print(f"energy [bold]{value * 1e3:.4f} mJ[/] per inference")


def platforms_command(
    db: DbUrlOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """List the platforms of this host and those registered in the database.

    With --server: the server's platforms and how many live workers serve each.
    """
    from nnlat.measure.runner import available_platforms
    from nnlat.predictor.api import load_predictor
    from nnlat.store import Store

    if server is not None:
        with user_errors(), client_of(server, token) as client:
            remote = client.platforms()
        if as_json:
            print_json({"platforms": remote})
            return
        table = Table("platform", "live workers", "in database")
        for r in remote:
            table.add_row(r["name"], str(r["workers"]), "yes" if r["registered"] else "no")
        stdout.print(table)
        return
    with user_errors():
        local = {p.name: p for p in available_platforms()}
        with Store.open(db) as store:
            stored = {r.platform.name: r.platform for r in store.list_platforms()}
        heads = load_predictor().platforms
    rows = []
    for name in sorted(local.keys() | stored.keys()):
        p = local.get(name) or stored[name]
        rows.append(
            {
                "name": name,
                "hardware": p.hardware,
                "runtime": p.runtime,
                "runtime_version": p.runtime_version,
                "dtype": p.dtype,
                "threads": p.threads,
                "device": p.device,
                "available": name in local,
                "registered": name in stored,
                "predicted_by": _serving_head(name, heads),
            }
        )
    if as_json:
        print_json({"platforms": rows})
        return
    table = Table(
        "platform", "runtime", "dtype", "threads", "available here", "in database", "predicted"
    )
    for r in rows:
        head = r["predicted_by"]
        table.add_row(
            r["name"],
            f"{r['runtime']} {r['runtime_version']}",
            r["dtype"],
            str(r["threads"] or "default"),
            "yes" if r["available"] else "no",
            "yes" if r["registered"] else "no",
            "no" if head is None else "yes" if head == r["name"] else f"by {head}",
        )
    stdout.print(table)


def _serving_head(platform: str, heads: list[str]) -> str | None:
    """The shipped predictor's head that answers for ``platform``, if any may."""
    try:
        return match_platform(platform, heads).head
    except UnknownPlatformError:
        return None
