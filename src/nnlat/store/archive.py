"""The store's export file: gzip-compressed JSON Lines, one model per line.

Line 1 is a header; every further line is one model with all its measurements::

    {"format": "nnlat-store", "version": 1, "exported_at": "2025-01-01T00:00:00Z",
     "platforms": [{"platform": {"hardware": "epyc", "runtime": "ort",
                                 "runtime_version": "1.31.1", "dtype": "fp32",
                                 "threads": 1, "device": "cpu"},
                    "descriptor": {...}}]}
    {"graph_hash": "6f1c0e4b2a9d8c7e", "hash_scheme": 1, "family": "resnet",
     "tags": ["zoo"], "zoo_spec": {"family": "resnet", "config": {...}} | null,
     "onnx_b64": "<base64 weight-free ONNX>" | null,
     "onnx_size": 10874, "source_format": "tflite" | null,
     "source_b64": "<base64 original .tflite, weights included>" | null,
     "flops": ..., "macs": ..., "params": ..., "bytes_moved": ...,
     "nodes": 71, "kernels": 30, "op_counts": {"Conv": 20, ...}, "unknown_ops": {},
     "created_at": "...",
     "measurements": [{"platform": "epyc-ort1.31-fp32-t1", "batch_size": 1,
                       "input_shapes": {"x": [1, 3, 224, 224]}, "protocol_version": 1,
                       "status": "ok", "error": null,
                       "stats": {"n": 200, "mean_ms": ..., "median_ms": ..., "p90_ms": ...,
                                 "p99_ms": ..., "std_ms": ..., "cv": ..., "min_ms": ...,
                                 "max_ms": ..., "median_ci95_ms": ..., "stable": true} | null,
                       "compile_ms": ..., "cold_ms": ..., "peak_memory_bytes": ...,
                       "environment": {...}, "source": "measured", "created_at": "..."}]}

(shown indented here; in the file each record is one line without spaces). A model
carries its ONNX when the store kept it, else its zoo spec, from which
``nnlat.zoo`` regenerates it; a model loaded from TFLite also carries its original file
(``source_b64``; files written before it existed read as ONNX models). Measurements are
:class:`~nnlat.measure.types.Measurement` values without the repeated ``graph_hash``.
Times are ISO 8601 in UTC; milliseconds are JSON numbers that read back bit-exact.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from nnlat.measure.types import Measurement
from nnlat.store.errors import StoreError
from nnlat.store.records import PlatformRecord, StoredModel

FORMAT: Literal["nnlat-store"] = "nnlat-store"
FORMAT_VERSION = 1


class ArchiveHeader(BaseModel):
    """The first line of an export file."""

    model_config = ConfigDict(frozen=True)

    format: Literal["nnlat-store"]
    version: int
    exported_at: datetime
    platforms: tuple[PlatformRecord, ...]


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def _model_line(model: StoredModel, measurements: Sequence[Measurement]) -> str:
    record = model.model_dump(mode="json", exclude={"onnx_bytes", "source_bytes"})
    record["onnx_b64"] = _b64encode(model.onnx_bytes)
    record["source_b64"] = _b64encode(model.source_bytes)
    record["measurements"] = [
        m.model_dump(mode="json", exclude={"graph_hash"}) for m in measurements
    ]
    return _dumps(record)


def _b64encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _b64decode(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text, validate=True)


def write_archive(
    path: str | os.PathLike[str],
    platforms: Iterable[PlatformRecord],
    models: Iterable[tuple[StoredModel, Sequence[Measurement]]],
) -> int:
    """Write an export file; the file appears whole or not at all.

    Args:
        path: where to write (conventionally ``*.jsonl.gz``).
        platforms: every platform, with its descriptor.
        models: each model with its measurements, streamed.

    Returns:
        The number of models written.

    Raises:
        StoreError: the file cannot be written (nothing is left behind).
    """
    path = Path(path)
    header = ArchiveHeader(
        format=FORMAT,
        version=FORMAT_VERSION,
        exported_at=datetime.now(UTC),
        platforms=tuple(platforms),
    )
    partial = path.with_name(path.name + ".partial")
    count = 0
    try:
        with gzip.open(partial, "wt", encoding="utf-8") as out:
            out.write(_dumps(header.model_dump(mode="json")))
            for model, measurements in models:
                out.write(_model_line(model, measurements))
                count += 1
        os.replace(partial, path)
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc}; choose a writable path") from exc
    finally:
        partial.unlink(missing_ok=True)  # after a failure; after success it is gone already
    return count


def _not_an_archive(path: Path, line: int, why: object) -> StoreError:
    return StoreError(
        f"{path}:{line} is not a valid nnlat store export ({why}); "
        "expected a gzip JSON Lines file written by `nnlat db export`"
    )


def _parse_model(path: Path, line_number: int, line: str) -> tuple[StoredModel, list[Measurement]]:
    try:
        record = json.loads(line)
        onnx = _b64decode(record.pop("onnx_b64", None))
        source = _b64decode(record.pop("source_b64", None))
        entries = record.pop("measurements", [])
        model = StoredModel.model_validate({**record, "onnx_bytes": onnx, "source_bytes": source})
        measurements = [
            Measurement.model_validate({**entry, "graph_hash": model.graph_hash})
            for entry in entries
        ]
    except (ValueError, TypeError, AttributeError) as exc:  # JSON, base64 and pydantic errors
        raise _not_an_archive(path, line_number, exc) from exc
    return model, measurements


def read_archive(
    path: str | os.PathLike[str],
) -> tuple[ArchiveHeader, Iterator[tuple[StoredModel, list[Measurement]]]]:
    """Open an export file: its header now, its models as they are read.

    Args:
        path: a file written by :func:`write_archive`.

    Returns:
        The header and an iterator of (model, its measurements).

    Raises:
        StoreError: the file is missing, not gzip, not an nnlat export, written by a newer
            nnlat, or has a malformed line (raised while iterating, with its line number).
    """
    path = Path(path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            first = lines.readline()
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc}") from exc
    try:
        header = ArchiveHeader.model_validate_json(first)
    except ValidationError as exc:
        raise _not_an_archive(path, 1, "no nnlat-store header") from exc
    if header.version > FORMAT_VERSION:
        raise StoreError(
            f"{path} uses export format version {header.version}, newer than this nnlat "
            f"reads ({FORMAT_VERSION}); upgrade nnlat"
        )

    def models() -> Iterator[tuple[StoredModel, list[Measurement]]]:
        line_number = 1
        try:
            with gzip.open(path, "rt", encoding="utf-8") as lines:
                next(lines)
                for line_number, line in enumerate(lines, start=2):
                    if line.strip():
                        yield _parse_model(path, line_number, line)
        except (OSError, EOFError) as exc:  # truncated or corrupt gzip stream
            raise _not_an_archive(path, line_number + 1, exc) from exc

    return header, models()
