"""``Store``: the repository of models, platforms and measurements.

Every method takes and returns domain values (:class:`~nnlat.graph.ir.Graph`,
:class:`~nnlat.platform.Platform`, :class:`~nnlat.measure.types.Measurement`,
:class:`~nnlat.store.records.StoredModel`); ORM rows stay in this package. Each write is
one transaction of the store's :class:`~nnlat.store.database.Database`: it happens whole
or not at all.

Writes are safe to repeat and to race: models are unique by graph hash, platforms by
name, measurements by cache key; a writer that loses a race to insert the same key
re-reads and goes on as if it had come second.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Self

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine
from sqlalchemy.orm import Session

from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.measure.types import PROTOCOL_VERSION, Measurement, NodeProfile, Status
from nnlat.platform import Platform
from nnlat.store import exchange, statistics
from nnlat.store.database import Database
from nnlat.store.jobs import Jobs
from nnlat.store.measurements import (
    IdCache,
    find_query,
    list_query,
    measured_query,
    put_measurement,
    set_node_profile,
)
from nnlat.store.records import ImportReport, PlatformRecord, StoredModel, StoreStats
from nnlat.store.rows import (
    check_zoo_spec,
    merge_model,
    model_row,
    platform_values,
    source_file,
    to_measurement,
    to_model,
    to_platform,
)
from nnlat.store.tables import ModelRow, PlatformRow, utcnow
from nnlat.store.tokens import Tokens


def _as_platform_name(platform: Platform | str) -> str:
    return platform if isinstance(platform, str) else platform.name


class Store:
    """Models, platforms and measurements in one SQL database.

    Build it with :meth:`open`; close it (or use it as a context manager) when done.

    Example:
        >>> import tempfile
        >>> from datetime import datetime, UTC
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.platform import Platform
        >>> store = Store.open(f"sqlite:///{tempfile.mkdtemp()}/nnlat.db")
        >>> graph = load(tiny_model())
        >>> model_id = store.upsert_model(graph, family="tiny")
        >>> cpu = Platform(hardware="epyc", runtime="ort", runtime_version="1.31.1",
        ...                dtype="fp32", threads=1)
        >>> _ = store.upsert_platform(cpu)
        >>> failed = Measurement(graph_hash=graph_key(graph).digest, platform=cpu.name,
        ...                      batch_size=1, input_shapes={"x": (1, 3, 32, 32)},
        ...                      status="failed", error="no kernel for Relu",
        ...                      created_at=datetime.now(UTC))
        >>> store.add_measurement(failed)
        True
        >>> store.find_measurement(failed.graph_hash, cpu, 1, {"x": (1, 3, 32, 32)}).error
        'no kernel for Relu'
        >>> store.close()
    """

    def __init__(self, database: Database) -> None:
        """Wrap a database whose schema is already migrated (see :meth:`open`)."""
        self.database = database
        """The :class:`~nnlat.store.database.Database` every repository here writes through."""
        self.jobs = Jobs(database)
        """The device farm's jobs (:class:`~nnlat.store.jobs.Jobs`)."""
        self.tokens = Tokens(database)
        """The server's API tokens (:class:`~nnlat.store.tokens.Tokens`)."""

    @classmethod
    def open(cls, url: str | URL | None = None, *, migrate: bool = True) -> Self:
        """Connect to the store's database and bring its schema up to date.

        Args:
            url: a SQLAlchemy URL; None means ``NNLAT_DB_URL`` or else a SQLite file in the
                user data directory, created if needed (see :mod:`nnlat.store.url`).
            migrate: run the Alembic migrations to head (a no-op when already there).

        Returns:
            An open :class:`Store`.

        Raises:
            StoreError: the URL is not one nnlat supports.
            StoreUnavailableError: the database cannot be reached, opened or migrated.
        """
        return cls(Database.open(url, migrate=migrate))

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for migrations and diagnostics)."""
        return self.database.engine

    @property
    def url(self) -> str:
        """The database URL, password masked."""
        return self.database.url

    def close(self) -> None:
        """Close every pooled connection."""
        self.database.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    # -- models -------------------------------------------------------------------------

    def upsert_model(
        self,
        graph: Graph,
        family: str | None = None,
        zoo_spec: Mapping[str, Any] | None = None,
        tags: Sequence[str] = (),
        *,
        keep_onnx: bool = False,
        keep_source: bool = True,
    ) -> int:
        """Store a model once per graph hash; return its id.

        A zoo model (``zoo_spec`` given) is stored without its ONNX, since the zoo can
        regenerate it, unless ``keep_onnx``. For a model already stored, a given family
        or zoo spec replaces the stored one, tags are added, and a missing ONNX is
        filled in; nothing is erased. A graph loaded from another format (TFLite) keeps
        its original file too (``graph.source_bytes``, zoo model or not): LiteRT and Vela
        measure that file, and only a zoo recipe exported by the same converter version
        regenerates it; a campaign of thousands of zoo models passes ``keep_source=False``
        (an int8 ImageNet-sized file is 10 MB, 2,000 of them would be 20 GB).

        Args:
            graph: a loaded graph (``graph.onnx_bytes`` is the weight-free ONNX).
            family: the model family, e.g. ``"resnet"``; defaults to the zoo spec's.
            zoo_spec: ``{"family": ..., "config": {...}}`` (``ZooModel.spec``).
            tags: free labels.
            keep_onnx: store the ONNX even when the zoo spec could regenerate it.
            keep_source: store the original non-ONNX file (ignored without a zoo spec:
                then the file is the only copy and is always kept).

        Returns:
            The model's id.

        Raises:
            StoreError: a malformed zoo spec, an original file over
                :data:`~nnlat.store.rows.MAX_SOURCE_BYTES`, or the database refused the
                write.
        """
        digest = graph_key(graph).digest
        spec = check_zoo_spec(zoo_spec)
        family = family or (spec["family"] if spec else None)
        onnx = graph.onnx_bytes if (spec is None or keep_onnx) and graph.onnx_bytes else None
        source = source_file(graph.source_format, graph.source_bytes)
        if source is not None and not keep_source and spec is not None:
            source = source._replace(data=None)

        def work(session: Session) -> int:
            row = session.scalar(sa.select(ModelRow).where(ModelRow.graph_hash == digest))
            if row is None:
                row = model_row(graph, digest, family, spec, tags, onnx, source)
                session.add(row)
                session.flush()
            else:
                merge_model(row, family, spec, tags, onnx, source)
            return row.id

        return self.database.write(f"store model {digest}", work)

    def get_model(self, graph_hash: str) -> StoredModel | None:
        """The stored model with this graph hash, or None.

        Args:
            graph_hash: 16 hex characters (``graph_key(graph).digest``).
        """
        with self.database.transaction(f"read model {graph_hash}") as session:
            row = session.scalar(sa.select(ModelRow).where(ModelRow.graph_hash == graph_hash))
            return None if row is None else to_model(row)

    def list_models(
        self, family: str | None = None, limit: int | None = None, offset: int = 0
    ) -> list[StoredModel]:
        """Stored models, oldest first, *without* their ONNX or source bytes (``get_model``
        has them).

        Args:
            family: only this family.
            limit, offset: a page of the list.
        """
        query = (
            sa.select(ModelRow)
            .options(
                sa.orm.defer(ModelRow.onnx, raiseload=True),
                sa.orm.defer(ModelRow.source, raiseload=True),
            )
            .order_by(ModelRow.id)
            .offset(offset)
            .limit(limit)
        )
        if family is not None:
            query = query.where(ModelRow.family == family)
        with self.database.transaction("list models") as session:
            return [to_model(row, with_onnx=False) for row in session.scalars(query)]

    # -- platforms ----------------------------------------------------------------------

    def upsert_platform(
        self, platform: Platform, descriptor: Mapping[str, Any] | None = None
    ) -> int:
        """Store a platform once per name; return its id.

        A platform already stored under the same name takes the given identity fields
        (a newer patch version of the runtime, say); its descriptor is replaced only when
        one is given.

        Args:
            platform: the platform.
            descriptor: hardware descriptor (performance counters, primitive-op
                latencies, ...), JSON-able.

        Returns:
            The platform's id.
        """
        values = platform_values(platform)

        def work(session: Session) -> int:
            row = session.scalar(sa.select(PlatformRow).where(PlatformRow.name == platform.name))
            if row is None:
                row = PlatformRow(**values, descriptor=dict(descriptor or {}), created_at=utcnow())
                session.add(row)
                session.flush()
                return row.id
            for column, value in values.items():
                if getattr(row, column) != value:
                    setattr(row, column, value)
            if descriptor is not None and row.descriptor != dict(descriptor):
                row.descriptor = dict(descriptor)
            return row.id

        return self.database.write(f"store platform {platform.name}", work)

    def get_platform(self, name: str) -> PlatformRecord | None:
        """The stored platform with this name and its descriptor, or None."""
        with self.database.transaction(f"read platform {name}") as session:
            row = session.scalar(sa.select(PlatformRow).where(PlatformRow.name == name))
            return None if row is None else to_platform(row)

    def list_platforms(self) -> list[PlatformRecord]:
        """Every stored platform, by name."""
        with self.database.transaction("list platforms") as session:
            rows = session.scalars(sa.select(PlatformRow).order_by(PlatformRow.name))
            return [to_platform(row) for row in rows]

    def zoo_hashes(self, family: str) -> dict[str, str]:
        """Configuration JSON → graph hash of the stored zoo models of ``family``.

        The JSON is ``ZooModel.config_json`` (sorted keys), so a campaign that draws a
        configuration again knows its hash without exporting it.

        Example:
            >>> from nnlat.zoo import get_family
            >>> store = Store.open("sqlite://")
            >>> alexnet = get_family("alexnet")
            >>> model = alexnet.model(alexnet.canonical["alexnet"])
            >>> graph = model.to_graph()
            >>> _ = store.upsert_model(graph, zoo_spec=model.spec)
            >>> store.zoo_hashes("alexnet") == {model.config_json: graph_key(graph).digest}
            True
        """
        query = sa.select(ModelRow.zoo_spec, ModelRow.graph_hash).where(
            ModelRow.family == family, ModelRow.zoo_spec.is_not(None)
        )
        with self.database.transaction(f"list {family} zoo models") as session:
            return {
                json.dumps(spec["config"], sort_keys=True): digest
                for spec, digest in session.execute(query)
                # a JSON null passes `is_not(None)`: a model of the family stored without
                # a recipe (a query's or a campaign's graph at another batch size)
                if spec and spec.get("family") == family
            }

    # -- measurements -------------------------------------------------------------------

    def find_measurement(
        self,
        graph_hash: str,
        platform: Platform | str,
        batch_size: int,
        input_shapes: Mapping[str, Sequence[int]],
        protocol_version: int = PROTOCOL_VERSION,
    ) -> Measurement | None:
        """The stored result for a cache key, or None (a lookup through the unique index).

        Args:
            graph_hash: the model's graph hash.
            platform: a platform or its name.
            batch_size: dimension 0 of the inputs.
            input_shapes: input name → shape as measured.
            protocol_version: the measurement protocol.

        Returns:
            The :class:`Measurement`, whatever its status, or None.
        """
        query = find_query(
            graph_hash, _as_platform_name(platform), batch_size, input_shapes, protocol_version
        )
        with self.database.transaction("look up a measurement") as session:
            found = session.execute(query).first()
            return None if found is None else to_measurement(*found)

    def add_measurement(self, measurement: Measurement, replace: bool = False) -> bool:
        """Store a measurement under its cache key, in one transaction.

        Its model (:meth:`upsert_model`) and platform (:meth:`upsert_platform`) must be
        stored first.

        Args:
            measurement: the result, failed ones included.
            replace: overwrite an existing result with the same key (a refresh); by
                default the existing result is kept.

        Returns:
            True if the row was written, False if an existing result was kept.

        Raises:
            StoreError: the model or platform is unknown, or the database refused the
                row; either way nothing was written.
        """
        action = f"store a measurement of {measurement.graph_hash} on {measurement.platform}"
        return self.database.write(
            action, lambda session: put_measurement(session, measurement, replace, {})
        )

    def add_measurements(self, measurements: Sequence[Measurement]) -> int:
        """Store many measurements in one transaction (an import); keep existing results.

        Returns:
            How many were written (the others had a stored result under their key, or
            repeat an earlier item's key).

        Raises:
            StoreError: a model or platform is unknown, or the database refused a row;
                nothing of the batch is written then.
        """

        def work(session: Session) -> int:
            ids: IdCache = {}
            return sum(put_measurement(session, m, False, ids) for m in measurements)

        return self.database.write(f"store {len(measurements)} measurements", work)

    def list_measurements(
        self,
        platform: Platform | str | None = None,
        family: str | None = None,
        status: Status | None = "ok",
        *,
        graph_hash: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Measurement]:
        """Stored measurements, oldest row first.

        Args:
            platform: only this platform (or platform name).
            family: only models of this family.
            status: only this status; None for all.
            graph_hash: only this model.
            limit, offset: a page of the list.
        """
        query = list_query(
            _as_platform_name(platform) if platform is not None else None,
            family,
            status,
            graph_hash,
        )
        query = query.offset(offset).limit(limit)
        with self.database.transaction("list measurements") as session:
            return [to_measurement(*found) for found in session.execute(query)]

    def add_node_profile(
        self, measurement: Measurement, profile: NodeProfile | None, note: str | None = None
    ) -> bool:
        """Attach per-node times (or why there are none) to a stored measurement.

        Only the profile columns of the row with ``measurement``'s cache key change; its
        latency stays as timed.

        Args:
            measurement: the stored result (its cache key is what is used).
            profile: the per-node times, or None with ``note`` saying why.
            note: why profiling failed.

        Returns:
            True if a stored row was updated, False if no row has that key.
        """
        action = f"store the node profile of {measurement.graph_hash} on {measurement.platform}"
        return self.database.write(
            action, lambda session: set_node_profile(session, measurement, profile, note)
        )

    def measured_hashes(
        self,
        platform: Platform | str,
        batch_size: int = 1,
        protocol_version: int = PROTOCOL_VERSION,
    ) -> set[str]:
        """Graph hashes with a stored result (any status, any shapes) on ``platform``.

        One query for a whole campaign's "what is left to measure".
        """
        query = measured_query(_as_platform_name(platform), batch_size, protocol_version)
        with self.database.transaction("list measured models") as session:
            return set(session.scalars(query))

    # -- statistics ---------------------------------------------------------------------

    def record_lookup(self, hit: bool) -> None:
        """Count one cache lookup as a hit or a miss (an atomic increment)."""
        self.record_lookups(hits=int(hit), misses=int(not hit))

    def record_lookups(self, hits: int, misses: int) -> None:
        """Add to the lookup counters in one transaction (a busy server batches them)."""

        def work(session: Session) -> None:
            for name, count in ((statistics.HITS, hits), (statistics.MISSES, misses)):
                if count:
                    statistics.bump(session, name, count)

        if hits or misses:
            self.database.write("count lookups", work)

    def stats(self) -> StoreStats:
        """Row counts and the cache hit ratio (what ``nnlat db stats`` prints)."""
        with self.database.transaction("read statistics") as session:
            return statistics.read_stats(session, self.url)

    # -- export / import ----------------------------------------------------------------

    def export(
        self,
        path: str | os.PathLike[str],
        platforms: Sequence[str] | None = None,
        *,
        npu_layers: bool = True,
    ) -> int:
        """Write every platform, model and measurement to a gzip JSON Lines file.

        The format is documented in :mod:`nnlat.store.archive`.

        Args:
            path: the file to write (conventionally ``*.jsonl.gz``); replaced if it exists.
            platforms: only these platforms, their measurements and the models measured
                on them (default: everything).
            npu_layers: keep each Vela estimate's per-layer table; without it a dataset
                of transformers is ten times smaller, and rerunning Vela (deterministic)
                gives the tables back.

        Returns:
            The number of models written.

        Raises:
            StoreError: a platform of ``platforms`` is not in the store.
        """
        with self.database.transaction("export the store") as session:
            return exchange.export(session, path, platforms, npu_layers=npu_layers)

    def import_(self, path: str | os.PathLike[str]) -> ImportReport:
        """Add the contents of an export file; importing the same file again adds nothing.

        Platforms and models are upserted (as :meth:`upsert_platform` and
        :meth:`upsert_model` do); a measurement whose cache key is already stored is kept
        as it is. Measurements keep their ``source``, so an export of this store imported
        elsewhere reads back exactly. Each chunk of models is one transaction.

        Args:
            path: a file written by :meth:`export`.

        Returns:
            An :class:`ImportReport` of what was read and what was added.

        Raises:
            StoreError: the file is not a readable nnlat export.
        """
        return exchange.import_archive(self.database, path, self.upsert_platform)
