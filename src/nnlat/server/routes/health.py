"""``GET /v1/health`` and ``GET /v1/stats``."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter

import nnlat
from nnlat.farm.dispatch import LocalDispatcher
from nnlat.server.deps import CallerDep, ServiceDep
from nnlat.server.schemas import Health

router = APIRouter(tags=["service"])


@router.get("/health", response_model=Health)
def health(service: ServiceDep) -> Health:
    """Is the service up, and can it reach its database?"""
    try:
        with service.store.engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
        database = "ok"
    except sa.exc.DBAPIError:
        database = "unreachable"
    return Health(
        status="ok" if database == "ok" else "degraded",
        version=nnlat.__version__,
        database=database,
        farm="local" if isinstance(service.dispatcher, LocalDispatcher) else "celery",
    )


@router.get("/stats")
def stats(service: ServiceDep, who: CallerDep) -> dict[str, Any]:
    """Row counts, cache hits and misses (what `nnlat db stats` prints).

    The database URL (driver, user, host, name) is shown to token holders only.
    """
    service.flush_lookups()  # this process's counts; other server processes' lag <= 1 s
    return service.store.stats().model_dump(exclude=None if who.can_write else {"url"})
