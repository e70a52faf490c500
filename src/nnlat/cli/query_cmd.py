"""``nnlat query`` and ``nnlat platforms``: true latencies, measured once then cached."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from nnlat.cli.checks import OptionError, check_model_file, suggest
from nnlat.cli.config import check_configured_limits
from nnlat.cli.db_cmd import DbUrlOption
from nnlat.cli.inspect_cmd import InputShapeOption
from nnlat.cli.output import parse_input_shapes, print_json, spinner, stderr, stdout, user_errors
from nnlat.cli.remote import ServerOption, TokenOption, client_of


class Target(StrEnum):
    """What ``nnlat query`` shows of a measurement."""

    latency = "latency"
    memory = "memory"
    energy = "energy"


if TYPE_CHECKING:
    from nnlat.platform import Platform
    from nnlat.querying import QueryResult
    from nnlat.store import Store


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
    shapes = parse_input_shapes(input_shape)
    with user_errors(subject=model.name):
        check_model_file(model)
        if server is not None:
            if platform is None:
                raise OptionError("with --server, give --platform (`nnlat platforms --server URL`)")
            if inputs is not None:
                raise OptionError("--inputs works only on this host, not with --server")
            with (
                client_of(server, token) as client,
                spinner(f"querying {model.name} on {platform} at {server}", quiet=as_json),
            ):
                result = client.query(model, platform, batch_size, shapes, refresh=refresh)
        else:
            check_configured_limits([model], batch_size, shapes)
            platform, result = _query_here(
                model, platform, batch_size, shapes, inputs, refresh, max_time, db, as_json
            )
    payload = {"model": str(model), **result.to_dict()}
    failed = payload["status"] != "ok"
    if as_json:
        print_json(payload)
        if failed:
            raise typer.Exit(1)
        return
    stdout.print(f"[bold]{escape(model.name)}[/]", highlight=False)
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column()
    table.add_row("platform", payload["platform"])
    source = "from the database" if result.cached else "measured now"
    table.add_row("batch", f"{batch_size} ({source})")
    if failed:
        stdout.print(table)
        stderr.print(
            f"[red]{payload['status']}:[/] {escape(model.name)} on {payload['platform']}: "
            f"{escape(payload['error'] or '')}",
            highlight=False,
        )
        raise typer.Exit(1)
    if target is not Target.latency:
        stdout.print(table)
        _print_target(payload, target)
        return
    lat = payload["latency_ms"]
    if payload.get("deterministic"):
        table.add_row(
            "estimate", f"[bold]{lat['median']:.6f} ms[/] (deterministic: one exact value)"
        )
        table.add_row("graph hash", payload["graph_hash"])
        stdout.print(table)
        return
    table.add_row("median", f"[bold]{lat['median']:.3f} ms[/] ± {lat['median_ci95']:.3f} (95 % CI)")
    table.add_row("mean / std", f"{lat['mean']:.3f} / {lat['std']:.3f} ms (CV {lat['cv']:.1%})")
    table.add_row("p90 / p99 / min", f"{lat['p90']:.3f} / {lat['p99']:.3f} / {lat['min']:.3f} ms")
    table.add_row("runs", str(lat["n"]))
    if not payload["stable"]:
        table.add_row(
            "[yellow]unstable[/]",
            "[yellow]high variation: measure again with --refresh when quieter[/]",
        )
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


def _query_here(
    model: Path,
    platform: str | None,
    batch_size: int,
    shapes: dict[str, tuple[int, ...]],
    inputs: Path | None,
    refresh: bool,
    max_time: float,
    db: str | None,
    quiet: bool,
) -> tuple[str, QueryResult]:
    """Query on this host: the database first, a measurement (with a spinner) if needed."""
    from nnlat.measure.runner import reference_platform
    from nnlat.measure.types import MeasureSpec
    from nnlat.platform import UnknownPlatformError
    from nnlat.querying import QueryEngine
    from nnlat.store import Store

    platform = platform or reference_platform().name
    with Store.open(db) as store:
        engine = QueryEngine(store, MeasureSpec(max_time_s=max_time))
        try:
            with spinner(f"querying {model.name} on {platform}", quiet=quiet):
                result = engine.query(
                    model, platform, batch_size, shapes, refresh=refresh, inputs=inputs
                )
        except UnknownPlatformError as exc:
            hint = suggest(platform, _known_platforms(store))
            raise UnknownPlatformError(f"{exc}; {hint}" if hint else str(exc)) from None
    return platform, result


def _known_platforms(store: Store) -> list[str]:
    from nnlat.measure.runner import available_platforms

    local = [p.name for p in available_platforms()]
    return local + [r.platform.name for r in store.list_platforms()]


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
        limits = _onnx_limits(local.values())
        details = _backend_details(local.values())
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
                "runs_onnx": name in local and name not in limits,
                "missing": limits.get(name),
                "registered": name in stored,
                "predicted_by": _serving_head(name, heads),
                **({"details": details[name]} if name in details else {}),
            }
        )
    if as_json:
        print_json({"platforms": rows})
        return
    # The names are what `-p` takes: never cut; the notes column wraps instead.
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column(
        "platform", no_wrap=True, min_width=max((len(r["name"]) for r in rows), default=8)
    )
    table.add_column("here", no_wrap=True, min_width=4)
    table.add_column("in db", no_wrap=True, min_width=5)
    table.add_column("notes", ratio=1)
    for r in rows:
        here = "yes" if r["runs_onnx"] else ("zoo" if r["available"] else "no")
        head = r["predicted_by"]
        predicted = (
            "" if head is None else "predicted" if head == r["name"] else f"predicted by {head}"
        )
        notes = "; ".join(note for note in (r["missing"], predicted) if note)
        table.add_row(r["name"], here, "yes" if r["registered"] else "no", notes)
    stdout.print(table)
    if limits:
        stdout.print(
            "zoo = runs zoo models only (pip install onnx2torch torchvision to run ONNX)",
            highlight=False,
        )


def _onnx_limits(platforms: Iterable[Platform]) -> dict[str, str]:
    """Platform name → what it lacks to run ONNX models, for backends that need more."""
    from nnlat.measure.backends.registry import backend_registry

    registry = backend_registry()
    limits: dict[str, str] = {}
    for platform in platforms:
        support = getattr(registry.get(platform.runtime)(), "onnx_support", None)
        verdict = support() if support is not None else None
        if verdict is not None and not verdict:
            limits[platform.name] = verdict.reason
    return limits


def _backend_details(platforms: Iterable[Platform]) -> dict[str, dict[str, object]]:
    """Platform name → what its backend says it is (a Vela target's accelerator, …)."""
    from nnlat.measure.backends.registry import backend_registry

    registry = backend_registry()
    found: dict[str, dict[str, object]] = {}
    backends: dict[str, object] = {}
    for platform in platforms:
        backend = backends.setdefault(platform.runtime, registry.get(platform.runtime)())
        describe = getattr(backend, "details", None)
        if describe is not None:
            found[platform.name] = describe(platform)
    return found


def _serving_head(platform: str, heads: list[str]) -> str | None:
    """The shipped predictor's head that answers for ``platform``, if any may."""
    from nnlat.platform import UnknownPlatformError, match_platform

    try:
        return match_platform(platform, heads).head
    except UnknownPlatformError:
        return None
