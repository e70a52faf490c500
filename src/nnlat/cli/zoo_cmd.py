"""``nnlat zoo``: list model families and export seeded variants as ONNX or TFLite files."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from nnlat.cli.output import print_json, progress_bar, stdout, user_errors
from nnlat.errors import NnlatError

app = typer.Typer(help="Model families and search spaces.", no_args_is_help=True)


@app.command("list")
def list_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """List the model families and their canonical (named reference) configurations."""
    from nnlat.zoo import NNLQP_FAMILIES, families

    registry = families()
    rows = [
        {
            "name": name,
            "summary": registry.get(name).summary,
            "canonical": sorted(registry.get(name).canonical),
            "nnlqp": name in NNLQP_FAMILIES,
        }
        for name in registry.names()
    ]
    if as_json:
        print_json({"families": rows})
        return
    # family and configuration names are typed by users: never cut; summaries wrap
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("family", no_wrap=True)
    table.add_column("canonical configs", no_wrap=True)
    table.add_column("summary", ratio=1)
    for row in rows:
        table.add_row(row["name"], "\n".join(row["canonical"]), row["summary"])
    stdout.print(table)


@app.command("export")
def export_command(
    family: Annotated[str, typer.Option("--family", "-f", help="Family name (see zoo list).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")],
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="Distinct variants.")] = 10,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Sampler seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    converter: Annotated[
        str | None,
        typer.Option(
            "--converter",
            help="TFLite families: 'direct' (default; no TensorFlow) or 'tensorflow' "
            "(its post-training quantisation); default $NNLAT_TFLITE_CONVERTER.",
        ),
    ] = None,
) -> None:
    """Export COUNT structurally distinct variants of a family, in the family's format.

    Writes FAMILY_NNNNN_HASH.onnx (weight-free) or, for the TFLite families (cnn-cifar10,
    cnn-imagenet, cnn-kws, vit-cifar100), fully int8 FAMILY_NNNNN_SHA256.tflite files, and
    a manifest.jsonl with each variant's recipe (family + configuration), hash and file name.
    """
    from nnlat.zoo import get_family

    with user_errors():
        get_family(family)  # fail on an unknown family before creating anything
        out.mkdir(parents=True, exist_ok=True)
        records = []
        with progress_bar(as_json) as progress:
            task = progress.add_task(f"exporting {family}", total=count)
            files = _variant_files(family, count, seed, converter)
            for index, (suffix, data, record) in enumerate(files):
                name = f"{family}_{index:05d}_{suffix}"
                _write_atomically(out / name, data)
                records.append({"file": name, **record})
                progress.advance(task)
        manifest = out / "manifest.jsonl"
        listed = merged_manifest(manifest, records)
        _write_atomically(manifest, "".join(json.dumps(r) + "\n" for r in listed).encode())
    if as_json:
        print_json({"family": family, "count": len(records), "out": str(out), "models": records})
    else:
        stdout.print(f"wrote {len(records)} {family} models to {out}", highlight=False)
        stdout.print(f"{manifest} lists {len(listed)} models", highlight=False)


def merged_manifest(manifest: Path, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries already in ``manifest`` (if any), then ``records``; one entry per file.

    An export into a folder that holds an earlier one adds to its manifest instead of
    replacing it; a file written again replaces its old entry.

    Raises:
        ZooManifestError: the existing manifest is not JSON Lines.
    """
    new = {r["file"] for r in records}
    kept = []
    if manifest.exists():
        for number, line in enumerate(manifest.read_text().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                raise ZooManifestError(
                    f"{manifest} line {number} is not JSON; move the file away to start afresh"
                ) from None
            if entry.get("file") not in new:
                kept.append(entry)
    return [*kept, *records]


class ZooManifestError(NnlatError):
    """An existing manifest.jsonl that cannot be added to."""


def _variant_files(
    family: str, count: int, seed: int, converter: str | None = None
) -> Iterator[tuple[str, bytes, dict]]:
    """(file name suffix, file bytes, manifest fields) per variant, in the family's format."""
    from nnlat.zoo import get_family

    if get_family(family).source_format == "tflite":
        from nnlat.zoo.edge.converters import resolve_converter
        from nnlat.zoo.edge.variants import generate_tflite_variants

        name = resolve_converter(converter)  # an unknown name fails before any export
        for tflite in generate_tflite_variants(family, count, seed, name):
            fields = {"sha256": tflite.sha256, "converter": name, **tflite.model.spec}
            yield f"{tflite.sha256[:16]}.tflite", tflite.flatbuffer, fields
        return
    from nnlat.zoo.generate import generate_variants

    for variant in generate_variants(family, count, seed):
        fields = {"graph_hash": variant.graph_hash, **variant.model.spec}
        yield f"{variant.graph_hash}.onnx", _storage_bytes(variant.graph), fields


def _storage_bytes(graph: Any) -> bytes:
    """The weight-free ONNX of ``graph``, as ``nnlat`` stores models."""
    import onnx

    from nnlat.graph.onnx_io import serialize

    return serialize(onnx.load_from_string(graph.onnx_bytes))


def _write_atomically(path: Path, data: bytes) -> None:
    """Write to a temporary sibling then rename, so no half-written file is ever seen."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
