"""``create_app(settings)``: the FastAPI application, its state and its error mapping.

Every error a caller can cause is an :class:`~nnlat.errors.NnlatError` whose message says
what to do; it becomes a JSON ``{"detail": message}`` with a 4xx status (5xx when the
database or the broker is away), never a traceback.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

import nnlat
from nnlat.errors import ModelTooLargeError, NnlatError
from nnlat.farm.dispatch import Dispatcher, FarmUnavailableError, LocalDispatcher
from nnlat.measure.types import MeasureSpec
from nnlat.querying.service import (
    MeasurementNotAllowedError,
    QueryService,
    UnknownJobError,
    UnknownModelError,
)
from nnlat.server.routes import ROUTERS
from nnlat.settings import Settings
from nnlat.store import Store
from nnlat.store.errors import StoreUnavailableError

API_PREFIX = "/v1"

# Most specific first: the first matching class decides the status.
_STATUS: list[tuple[type[NnlatError], int]] = [
    (UnknownModelError, 404),
    (UnknownJobError, 404),
    (MeasurementNotAllowedError, 401),
    (ModelTooLargeError, 413),
    (StoreUnavailableError, 503),
    (FarmUnavailableError, 503),
]


def _status_of(exc: NnlatError) -> int:
    return next((code for cls, code in _STATUS if isinstance(exc, cls)), 400)


def default_dispatcher(settings: Settings, store: Store) -> Dispatcher:
    """Celery queues when a broker is configured, else this process's threads."""
    spec = MeasureSpec(max_time_s=settings.measure_max_time_s)
    if not settings.broker_url:
        return LocalDispatcher(store, spec)
    from nnlat.farm.celery_app import CeleryDispatcher, make_celery

    return CeleryDispatcher(make_celery(settings), settings.queue_prefix)


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    dispatcher: Dispatcher | None = None,
) -> FastAPI:
    """The nnlat REST service.

    Args:
        settings: configuration (default: read from ``NNLAT_*`` variables).
        store: the database (default: ``settings.db_url``).
        dispatcher: where jobs go (default: :func:`default_dispatcher`).

    Example:
        >>> import tempfile
        >>> from fastapi.testclient import TestClient
        >>> client = TestClient(create_app(Settings(db_url=f"sqlite:///{tempfile.mkdtemp()}/nnlat.db")))
        >>> client.get("/v1/health").json()["status"]
        'ok'
    """
    settings = settings or Settings()
    store = store or Store.open(settings.db_url)
    dispatcher = dispatcher or default_dispatcher(settings, store)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        dispatcher.close()
        app.state.service.flush_lookups()
        store.close()

    app = FastAPI(
        title="nnlat",
        version=nnlat.__version__,
        summary="Query and predict the latency of neural networks on real hardware.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.service = QueryService(store, dispatcher, max_upload_bytes=settings.max_upload_bytes)

    @app.exception_handler(NnlatError)
    async def nnlat_error(request: Request, exc: NnlatError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=_status_of(exc))

    for router in ROUTERS:
        app.include_router(router, prefix=API_PREFIX)
    return app
