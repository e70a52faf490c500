"""``create_app(settings)``: the FastAPI application, its state and its error mapping.

Every error a caller can cause is an :class:`~nnlat.errors.NnlatError` whose message says
what to do; it becomes a JSON ``{"detail": message}`` with a 4xx status (503 when the
database or the broker is away), never a traceback. Database errors name the database
(driver, user, host): they are logged here and answered without those details. Anything
else is a bug: logged with its traceback, answered 500 without one.

While the app runs, a background task sends again the jobs whose messages or workers
were lost (:meth:`~nnlat.querying.service.QueryService.resend_stale`), every
``sweep_interval_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

import nnlat
from nnlat.errors import LimitExceededError, ModelTooLargeError, NnlatError
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
from nnlat.store.errors import StoreError, StoreUnavailableError

API_PREFIX = "/v1"
log = logging.getLogger(__name__)

# Most specific first: the first matching class decides the status.
_STATUS: list[tuple[type[NnlatError], int]] = [
    (UnknownModelError, 404),
    (UnknownJobError, 404),
    (MeasurementNotAllowedError, 401),
    (ModelTooLargeError, 413),
    (LimitExceededError, 413),
    (StoreUnavailableError, 503),
    (StoreError, 503),
    (FarmUnavailableError, 503),
]


def _status_of(exc: NnlatError) -> int:
    return next((code for cls, code in _STATUS if isinstance(exc, cls)), 400)


async def _sweep(service: QueryService, interval_s: float) -> None:
    """Every ``interval_s``: send again the jobs that were lost (a failure is logged)."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            sent = await run_in_threadpool(service.resend_stale)
        except Exception:
            log.exception("the sweep for lost jobs failed")
            continue
        if sent:
            log.warning("sent %d lost job(s) again", sent)


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
        sweeper = None
        if settings.sweep_interval_s > 0:
            sweeper = asyncio.create_task(_sweep(app.state.service, settings.sweep_interval_s))
        yield
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
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
    app.state.service = QueryService(
        store,
        dispatcher,
        max_upload_bytes=settings.max_upload_bytes,
        stale_after_s=settings.stale_after_s,
        limits=settings.limits(),
        upload_memory_bytes=settings.upload_memory_bytes,
        upload_time_s=settings.upload_time_s,
    )

    @app.exception_handler(NnlatError)
    async def nnlat_error(request: Request, exc: NnlatError) -> JSONResponse:
        status = _status_of(exc)
        detail = " ".join(str(exc).split())
        if isinstance(exc, StoreError):
            log.error("%s %s: %s", request.method, request.url.path, detail)
            detail = (
                "the database is unavailable; retry later"
                if isinstance(exc, StoreUnavailableError)
                else "the database refused the request; retry later or tell the operator"
            )
        return JSONResponse({"detail": detail}, status_code=status)

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, request.url.path)
        return JSONResponse(
            {"detail": f"internal error ({type(exc).__name__}); the server log has the details"},
            status_code=500,
        )

    for router in ROUTERS:
        app.include_router(router, prefix=API_PREFIX)
    return app
