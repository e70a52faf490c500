"""Conversion between ORM rows and domain values; the only place that knows both.

Rows come in through :mod:`nnlat.store.tables`, values go out as
:class:`~nnlat.store.records.StoredModel`, :class:`~nnlat.store.records.PlatformRecord`
and :class:`~nnlat.measure.types.Measurement`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import sqlalchemy as sa
from pydantic import BaseModel

from nnlat.graph.ir import Graph
from nnlat.graph.summary import summarize
from nnlat.measure.types import LatencyStats, Measurement
from nnlat.platform import Platform
from nnlat.store.errors import StoreError
from nnlat.store.keys import canonical_input_shapes, input_shapes_hash, parse_input_shapes
from nnlat.store.records import PlatformRecord, StoredModel
from nnlat.store.tables import MeasurementRow, ModelRow, PlatformRow, utcnow

_STATS_FIELDS = tuple(LatencyStats.model_fields)
# Measurement fields kept in a column of the same name. The others are the key's graph hash
# and platform (stored as ids), input shapes (canonical text + hash) and the statistics
# (one column each). A new Measurement field needs a column and a migration, or reading
# and writing fail loudly.
_COLUMN_FIELDS = tuple(
    name
    for name in Measurement.model_fields
    if name not in {"graph_hash", "platform", "input_shapes", "stats"}
)


MAX_SOURCE_BYTES = 256 << 20
"""The largest original (non-ONNX) file the store keeps; the server's default upload limit."""

SOURCE_FORMATS = ("tflite",)
"""Formats whose original file the store keeps (an ONNX model's storage form is its ONNX)."""


class SourceFile(NamedTuple):
    """A model's original file in a format other than ONNX, as the store keeps it.

    ``data`` is None when only the format is kept (a zoo recipe regenerates the file).
    """

    format: str
    data: bytes | None


def source_file(source_format: str | None, data: bytes | None) -> SourceFile | None:
    """The original file worth keeping, or None for an ONNX model (or none given).

    Raises:
        StoreError: a format the store does not keep, or a file over
            :data:`MAX_SOURCE_BYTES`.

    Example:
        >>> source_file("onnx", b"...") is None
        True
        >>> source_file("tflite", b"\\x1c\\0\\0\\0TFL3").format
        'tflite'
    """
    if source_format in (None, "onnx") or not data:
        return None
    if source_format not in SOURCE_FORMATS:
        raise StoreError(
            f"cannot store a {source_format} model's source; the store keeps "
            f"{', '.join(SOURCE_FORMATS)} files besides ONNX"
        )
    if len(data) > MAX_SOURCE_BYTES:
        raise StoreError(
            f"the {source_format} file is {len(data):,} bytes, over the store's limit of "
            f"{MAX_SOURCE_BYTES:,}; store a smaller model"
        )
    return SourceFile(source_format, bytes(data))


def clean_tags(*groups: Sequence[str]) -> list[str]:
    """The union of tag groups, sorted, without repeats."""
    return sorted({str(tag) for group in groups for tag in group})


def check_zoo_spec(zoo_spec: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A zoo spec as a plain dict, or None.

    Raises:
        StoreError: it is not ``{"family": name, "config": {...}}``.
    """
    if zoo_spec is None:
        return None
    if set(zoo_spec) != {"family", "config"} or not isinstance(zoo_spec["config"], Mapping):
        raise StoreError(
            f"a zoo spec is {{'family': name, 'config': {{...}}}}, got keys {sorted(zoo_spec)}; "
            "pass ZooModel.spec"
        )
    return {"family": str(zoo_spec["family"]), "config": dict(zoo_spec["config"])}


def model_row(
    graph: Graph,
    digest: str,
    family: str | None,
    zoo_spec: dict[str, Any] | None,
    tags: Sequence[str],
    onnx: bytes | None,
    source: SourceFile | None = None,
) -> ModelRow:
    """A new model row, with the graph's costs and op counts (and its non-ONNX source)."""
    summary = summarize(graph)
    return ModelRow(
        graph_hash=digest,
        hash_scheme=summary.hash_scheme,
        family=family,
        tags=clean_tags(tags),
        zoo_spec=zoo_spec,
        onnx=onnx,
        onnx_size=summary.onnx_bytes,
        source_format=source.format if source else None,
        source=source.data if source else None,
        flops=summary.flops,
        macs=summary.macs,
        params=summary.params,
        bytes_moved=summary.bytes,
        nodes=summary.nodes,
        kernels=summary.kernels,
        op_counts=summary.op_counts,
        unknown_ops=summary.unknown_ops,
        created_at=utcnow(),
    )


def model_row_from_value(model: StoredModel) -> ModelRow:
    """A new model row holding exactly ``model`` (used by import).

    Raises:
        StoreError: its source is of a format the store does not keep, or too large.
    """
    source = source_file(model.source_format, model.source_bytes)
    return ModelRow(
        **model.model_dump(exclude={"onnx_bytes", "source_format", "source_bytes", "tags"}),
        onnx=model.onnx_bytes,
        source_format=source.format if source else None,
        source=source.data if source else None,
        tags=clean_tags(model.tags),
    )


def merge_model(
    row: ModelRow,
    family: str | None,
    zoo_spec: dict[str, Any] | None,
    tags: Sequence[str],
    onnx: bytes | None,
    source: SourceFile | None = None,
) -> None:
    """Update a stored model: given family and zoo spec win, tags add up, ONNX and the
    original file fill a gap.

    Nothing is erased: a None never replaces a stored value.
    """
    if family is not None and row.family != family:
        row.family = family
    if zoo_spec is not None and row.zoo_spec != zoo_spec:
        row.zoo_spec = zoo_spec
    merged = clean_tags(row.tags, tags)
    if merged != row.tags:
        row.tags = merged
    if row.onnx is None and onnx is not None:
        row.onnx = onnx
    if row.source is None and source is not None:
        row.source_format, row.source = source.format, source.data


def to_model(row: ModelRow, with_onnx: bool = True) -> StoredModel:
    """The value of a model row; ``with_onnx=False`` leaves ``onnx_bytes`` and
    ``source_bytes`` None (listings)."""
    return StoredModel(
        graph_hash=row.graph_hash,
        hash_scheme=row.hash_scheme,
        family=row.family,
        tags=tuple(row.tags),
        zoo_spec=row.zoo_spec,
        onnx_bytes=row.onnx if with_onnx else None,
        onnx_size=row.onnx_size,
        source_format=row.source_format,
        source_bytes=row.source if with_onnx else None,
        flops=row.flops,
        macs=row.macs,
        params=row.params,
        bytes_moved=row.bytes_moved,
        nodes=row.nodes,
        kernels=row.kernels,
        op_counts=row.op_counts,
        unknown_ops=row.unknown_ops,
        created_at=row.created_at,
    )


def platform_values(platform: Platform) -> dict[str, Any]:
    """The identity columns of a platform row."""
    return {
        "name": platform.name,
        "hardware": platform.hardware,
        "runtime": platform.runtime,
        "runtime_version": platform.runtime_version,
        "dtype": platform.dtype,
        "threads": platform.threads,
        "device": platform.device,
    }


def to_platform(row: PlatformRow) -> PlatformRecord:
    """The value of a platform row."""
    platform = Platform(
        hardware=row.hardware,
        runtime=row.runtime,
        runtime_version=row.runtime_version,
        dtype=row.dtype,
        threads=row.threads,
        device=row.device,
    )
    return PlatformRecord(platform=platform, descriptor=row.descriptor)


def measurement_values(measurement: Measurement) -> dict[str, Any]:
    """The columns of a measurement row, except its model and platform ids."""
    shapes = canonical_input_shapes(measurement.input_shapes)
    stats = measurement.stats.model_dump() if measurement.stats else {}
    return {
        **{name: _column(getattr(measurement, name)) for name in _COLUMN_FIELDS},
        "input_shapes": shapes,
        "input_shapes_hash": input_shapes_hash(shapes),
        **{name: stats.get(name) for name in _STATS_FIELDS},
        "stored_at": utcnow(),
    }


def _column(value: Any) -> Any:
    """A field as its column holds it: nested values (an NPU estimate) as JSON."""
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def to_measurement(row: MeasurementRow, graph_hash: str, platform: str) -> Measurement:
    """The value of a measurement row (see :func:`measurements_query`)."""
    stats = None
    if row.n is not None:  # the statistics columns are written all together or not at all
        stats = LatencyStats(**{name: getattr(row, name) for name in _STATS_FIELDS})
    return Measurement(
        graph_hash=graph_hash,
        platform=platform,
        input_shapes=parse_input_shapes(row.input_shapes),
        stats=stats,
        **{name: getattr(row, name) for name in _COLUMN_FIELDS},
    )


def measurements_query() -> sa.Select[MeasurementRow, str, str]:
    """Measurement rows with their graph hash and platform name, ready for
    :func:`to_measurement`."""
    return (
        sa.select(MeasurementRow, ModelRow.graph_hash, PlatformRow.name)
        .join(ModelRow, MeasurementRow.model_id == ModelRow.id)
        .join(PlatformRow, MeasurementRow.platform_id == PlatformRow.id)
    )
