"""The REST service (FastAPI): ``create_app(settings)``; ``nnlat serve`` runs it under uvicorn.

:mod:`~nnlat.server.app` builds the application and maps nnlat's errors to HTTP
statuses, :mod:`~nnlat.server.deps` holds what routes depend on (the query service, token
checks), :mod:`~nnlat.server.schemas` the request and response bodies, and
:mod:`~nnlat.server.routes` one router per resource.
"""

from nnlat.server.app import API_PREFIX, create_app

__all__ = ["API_PREFIX", "create_app"]
