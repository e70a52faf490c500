"""Reading the whole store out and adding an export back in, a chunk of models at a time.

The file format lives in :mod:`nnlat.store.archive`; this module moves rows. Both
directions touch a bounded number of models per query (:data:`CHUNK`), so memory stays
flat and round trips stay few for stores of tens of thousands of models.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from itertools import islice
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from nnlat.measure.types import Measurement
from nnlat.platform import Platform
from nnlat.store.archive import read_archive, write_archive
from nnlat.store.database import Database
from nnlat.store.errors import StoreError
from nnlat.store.records import ImportReport, StoredModel
from nnlat.store.rows import (
    measurement_values,
    measurements_query,
    merge_model,
    model_row_from_value,
    source_file,
    to_measurement,
    to_model,
    to_platform,
)
from nnlat.store.tables import MeasurementRow, ModelRow, PlatformRow

CHUNK = 500
"""Models per query when exporting, and per transaction when importing."""

MeasurementKey = tuple[int, int, str, int]  # platform id, batch size, shapes hash, protocol


def iter_models(session: Session) -> Iterator[tuple[StoredModel, list[Measurement]]]:
    """Every model, by id, with its measurements (oldest first); two queries per chunk."""
    last_id = 0
    while True:
        query = sa.select(ModelRow).where(ModelRow.id > last_id).order_by(ModelRow.id)
        rows = session.scalars(query.limit(CHUNK)).all()
        if not rows:
            return
        last_id = rows[-1].id
        by_model: dict[str, list[Measurement]] = {row.graph_hash: [] for row in rows}
        measurements = measurements_query().where(
            MeasurementRow.model_id.in_([row.id for row in rows])
        )
        for found in session.execute(measurements.order_by(MeasurementRow.id)):
            by_model[found.graph_hash].append(to_measurement(*found))
        for row in rows:
            yield to_model(row), by_model[row.graph_hash]
        session.expunge_all()  # forget this chunk's rows before reading the next


def export(
    session: Session,
    path: str | os.PathLike[str],
    platforms: Sequence[str] | None = None,
    *,
    npu_layers: bool = True,
) -> int:
    """Write the platforms, models and measurements read in ``session`` to an export file.

    Args:
        session: the open (read) transaction.
        path: the file to write; replaced if it exists.
        platforms: only these platforms, their measurements and the models measured on
            them (default: everything).
        npu_layers: keep the per-layer tables of Vela estimates.

    Returns:
        The number of models written.

    Raises:
        StoreError: a platform of ``platforms`` is not in the store.
    """
    rows = session.scalars(sa.select(PlatformRow).order_by(PlatformRow.id))
    records = [to_platform(row) for row in rows]
    models: Iterator[tuple[StoredModel, list[Measurement]]] = iter_models(session)
    if not npu_layers:
        models = ((model, [without_npu_layers(m) for m in ms]) for model, ms in models)
    if platforms is None:
        return write_archive(path, records, models)
    wanted = set(platforms)
    known = {r.platform.name for r in records}
    if unknown := sorted(wanted - known):
        names = ", ".join(sorted(known))
        raise StoreError(f"no platform {', '.join(unknown)} in the store; known: {names}")
    kept_models = (
        (model, kept)
        for model, measurements in models
        if (kept := [m for m in measurements if m.platform in wanted])
    )
    return write_archive(path, [r for r in records if r.platform.name in wanted], kept_models)


def without_npu_layers(measurement: Measurement) -> Measurement:
    """``measurement`` without the per-layer table of its Vela estimate (if it has one)."""
    if measurement.npu is None or not measurement.npu.layers:
        return measurement
    return measurement.model_copy(update={"npu": measurement.npu.model_copy(update={"layers": ()})})


def _lacks_profile() -> sa.ColumnElement[bool]:
    """True for rows without a node profile: SQL NULL, or a JSON null (what a JSON column
    that does not map None to NULL writes; SQLite and MySQL keep the two apart)."""
    text = sa.cast(MeasurementRow.node_profile, sa.Text)
    return sa.func.coalesce(text, "null") == "null"


def import_chunk(
    session: Session,
    chunk: Sequence[tuple[StoredModel, Sequence[Measurement]]],
    platform_ids: Mapping[str, int],
    source: str,
) -> dict[str, int]:
    """Add models and measurements not yet stored; keep every measurement already stored,
    only giving a stored one without a node profile the imported one's.

    Args:
        session: the open transaction.
        chunk: models with their measurements, as read from an export.
        platform_ids: platform name → id, every platform of the file included.
        source: the file, for error messages.

    Returns:
        Counts: ``models_read``, ``models_added``, ``measurements_read``,
        ``measurements_added``.

    Raises:
        StoreError: a measurement names a platform the file's header does not list.
    """
    hashes = {model.graph_hash for model, _ in chunk}
    rows = {
        row.graph_hash: row
        for row in session.scalars(sa.select(ModelRow).where(ModelRow.graph_hash.in_(hashes)))
    }
    stored: dict[int, set[MeasurementKey]] = {row.id: set() for row in rows.values()}
    # Stored rows without a node profile, by key: an imported profile fills the gap
    # (profiles added by `nnlat dataset profile` elsewhere), nothing else is replaced.
    unprofiled: dict[tuple[int, MeasurementKey], int] = {}
    if stored:
        keys = sa.select(
            MeasurementRow.id,
            MeasurementRow.model_id,
            MeasurementRow.platform_id,
            MeasurementRow.batch_size,
            MeasurementRow.input_shapes_hash,
            MeasurementRow.protocol_version,
            _lacks_profile(),
        ).where(MeasurementRow.model_id.in_(list(stored)))
        for row_id, model_id, platform_id, batch, shapes, protocol, bare in session.execute(keys):
            stored[model_id].add((platform_id, batch, shapes, protocol))
            if bare:
                unprofiled[model_id, (platform_id, batch, shapes, protocol)] = row_id

    counts = dict.fromkeys(
        ("models_read", "models_added", "measurements_read", "measurements_added"), 0
    )
    new_models = []
    for model, _ in chunk:
        row = rows.get(model.graph_hash)
        if row is None:
            row = rows[model.graph_hash] = model_row_from_value(model)
            new_models.append(row)
        else:
            source = source_file(model.source_format, model.source_bytes)
            merge_model(row, model.family, model.zoo_spec, model.tags, model.onnx_bytes, source)
    session.add_all(new_models)
    session.flush()  # one batched INSERT, which assigns the new ids
    stored.update((row.id, set()) for row in new_models)
    counts["models_added"] = len(new_models)

    new_rows: list[dict[str, Any]] = []
    profiled: list[dict[str, Any]] = []
    for model, measurements in chunk:
        counts["models_read"] += 1
        counts["measurements_read"] += len(measurements)
        model_id = rows[model.graph_hash].id
        for measurement in measurements:
            if measurement.platform not in platform_ids:
                raise StoreError(
                    f"{source}: model {model.graph_hash} has a measurement on platform "
                    f"{measurement.platform}, which the file's header does not list"
                )
            values = measurement_values(measurement)
            key = (
                platform_ids[measurement.platform],
                values["batch_size"],
                values["input_shapes_hash"],
                values["protocol_version"],
            )
            if key not in stored[model_id]:
                stored[model_id].add(key)
                new_rows.append({"model_id": model_id, "platform_id": key[0], **values})
            elif measurement.node_profile is not None and (model_id, key) in unprofiled:
                profiled.append(
                    {
                        "row_id": unprofiled.pop((model_id, key)),
                        "profile": values["node_profile"],
                        "note": values["node_profile_note"],
                    }
                )
    if new_rows:
        session.execute(sa.insert(MeasurementRow), new_rows)
        counts["measurements_added"] = len(new_rows)
    if profiled:
        update = (
            sa.update(MeasurementRow)
            .where(MeasurementRow.id == sa.bindparam("row_id"))
            .values(
                node_profile=sa.bindparam("profile", type_=MeasurementRow.node_profile.type),
                node_profile_note=sa.bindparam("note"),
            )
        )
        session.connection().execute(update, profiled)
    return counts


def import_archive(
    database: Database,
    path: str | os.PathLike[str],
    upsert_platform: Callable[[Platform, Mapping[str, Any] | None], int],
) -> ImportReport:
    """Add the contents of an export file, one transaction per chunk of models.

    Args:
        database: where to add them.
        path: a file written by :func:`export`.
        upsert_platform: stores one platform of the file's header (``Store.upsert_platform``).

    Returns:
        What was read and what was added.

    Raises:
        StoreError: the file is not a readable nnlat export.
    """
    header, models = read_archive(path)
    for record in header.platforms:
        upsert_platform(record.platform, record.descriptor)
    with database.transaction("read platform ids") as session:
        platform_ids = dict(session.execute(sa.select(PlatformRow.name, PlatformRow.id)).all())

    totals = dict.fromkeys(ImportReport.model_fields, 0)
    while chunk := list(islice(models, CHUNK)):
        work = partial(import_chunk, chunk=chunk, platform_ids=platform_ids, source=str(path))
        for key, value in database.write(f"import models from {path}", work).items():
            totals[key] += value
    return ImportReport(**totals)
