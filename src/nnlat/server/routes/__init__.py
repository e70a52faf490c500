"""One router per resource; :data:`ROUTERS` is what the app mounts under ``/v1``."""

from nnlat.server.routes import health, jobs, measurements, models, platforms, predictions, queries

ROUTERS = [
    health.router,
    models.router,
    queries.router,
    jobs.router,
    predictions.router,
    measurements.router,
    platforms.router,
]

__all__ = ["ROUTERS"]
