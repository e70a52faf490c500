"""Measurement rows: the queries that find them and the write under their cache key.

:class:`~nnlat.store.store.Store` opens the transaction (one measurement, or a batch) and
runs these queries in it; :func:`put_measurement` looks up the model and platform ids and
inserts, replaces or keeps the row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from nnlat.measure.types import Measurement, NodeProfile
from nnlat.store.errors import StoreError
from nnlat.store.keys import canonical_input_shapes, input_shapes_hash
from nnlat.store.rows import measurement_values, measurements_query
from nnlat.store.tables import MeasurementRow, ModelRow, PlatformRow

IdCache = dict[tuple[str, str], tuple[int, int]]
"""(graph hash, platform name) → (model id, platform id), memoised over one batch."""


def model_and_platform_ids(session: Session, measurement: Measurement) -> tuple[int, int]:
    """The ids of the measurement's model and platform.

    Raises:
        StoreError: either is not stored; the message says which to store first.
    """
    model_id = session.scalar(
        sa.select(ModelRow.id).where(ModelRow.graph_hash == measurement.graph_hash)
    )
    if model_id is None:
        raise StoreError(
            f"model {measurement.graph_hash} is not in the store; "
            "store its graph first (Store.upsert_model)"
        )
    platform_id = session.scalar(
        sa.select(PlatformRow.id).where(PlatformRow.name == measurement.platform)
    )
    if platform_id is None:
        raise StoreError(
            f"platform {measurement.platform} is not in the store; "
            "store it first (Store.upsert_platform)"
        )
    return model_id, platform_id


def put_measurement(
    session: Session, measurement: Measurement, replace: bool, ids: IdCache
) -> bool:
    """Write one measurement in ``session`` under its cache key.

    Args:
        session: the open transaction.
        measurement: the result to write.
        replace: overwrite a stored result with the same key; otherwise keep it.
        ids: memoised (model, platform) ids, filled in as the batch goes.

    Returns:
        True if the row was written, False if a stored result was kept.

    Raises:
        StoreError: the model or platform is not stored.
    """
    values = measurement_values(measurement)
    key = (measurement.graph_hash, measurement.platform)
    if key not in ids:
        ids[key] = model_and_platform_ids(session, measurement)
    model_id, platform_id = ids[key]
    existing = session.scalar(
        sa.select(MeasurementRow.id).where(
            MeasurementRow.model_id == model_id,
            MeasurementRow.platform_id == platform_id,
            MeasurementRow.batch_size == values["batch_size"],
            MeasurementRow.input_shapes_hash == values["input_shapes_hash"],
            MeasurementRow.protocol_version == values["protocol_version"],
        )
    )
    if existing is None:
        session.execute(
            sa.insert(MeasurementRow).values(model_id=model_id, platform_id=platform_id, **values)
        )  # executed now: a later item of the same batch sees this row
    elif replace:
        session.execute(
            sa.update(MeasurementRow).where(MeasurementRow.id == existing).values(**values)
        )
    else:
        return False
    return True


def set_node_profile(
    session: Session, measurement: Measurement, profile: NodeProfile | None, note: str | None
) -> bool:
    """Write the profile columns of the stored row with ``measurement``'s cache key.

    Returns:
        True if a row was updated, False if none has that key.
    """
    query = find_query(
        measurement.graph_hash,
        measurement.platform,
        measurement.batch_size,
        measurement.input_shapes,
        measurement.protocol_version,
    )
    found = session.execute(query).first()
    if found is None:
        return False
    values = {
        "node_profile": profile.model_dump(mode="json") if profile is not None else None,
        "node_profile_note": note,
    }
    session.execute(
        sa.update(MeasurementRow).where(MeasurementRow.id == found[0].id).values(**values)
    )
    return True


def find_query(
    graph_hash: str,
    platform: str,
    batch_size: int,
    input_shapes: Mapping[str, Sequence[int]],
    protocol_version: int,
) -> sa.Select[Any]:
    """The (measurement row, graph hash, platform name) of one cache key: a unique-index lookup."""
    shapes_hash = input_shapes_hash(canonical_input_shapes(input_shapes))
    return measurements_query().where(
        ModelRow.graph_hash == graph_hash,
        PlatformRow.name == platform,
        MeasurementRow.batch_size == batch_size,
        MeasurementRow.input_shapes_hash == shapes_hash,
        MeasurementRow.protocol_version == protocol_version,
    )


def list_query(
    platform: str | None, family: str | None, status: str | None, graph_hash: str | None
) -> sa.Select[Any]:
    """Measurement rows, oldest first, of the given platform, family, status and model."""
    query = measurements_query().order_by(MeasurementRow.id)
    if graph_hash is not None:
        query = query.where(ModelRow.graph_hash == graph_hash)
    if platform is not None:
        query = query.where(PlatformRow.name == platform)
    if family is not None:
        query = query.where(ModelRow.family == family)
    if status is not None:
        query = query.where(MeasurementRow.status == status)
    return query


def measured_query(platform: str, batch_size: int, protocol_version: int) -> sa.Select[Any]:
    """Graph hashes with a stored result (any status, any shapes) on ``platform``."""
    return (
        sa.select(ModelRow.graph_hash)
        .join(MeasurementRow, MeasurementRow.model_id == ModelRow.id)
        .join(PlatformRow, MeasurementRow.platform_id == PlatformRow.id)
        .where(
            PlatformRow.name == platform,
            MeasurementRow.batch_size == batch_size,
            MeasurementRow.protocol_version == protocol_version,
        )
    )
