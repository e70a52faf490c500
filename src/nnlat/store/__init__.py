"""The database: models, platforms and measurements behind one repository, ``Store``.

SQLAlchemy 2 tables (:mod:`~nnlat.store.tables`), Alembic migrations run from code
(:mod:`~nnlat.store.migrations`), URL resolution (:mod:`~nnlat.store.url`: explicit URL,
else ``NNLAT_DB_URL``, else SQLite in the user data directory) and the export file format
(:mod:`~nnlat.store.archive`). Only domain values leave this package.
"""

from nnlat.store.errors import StoreError, StoreUnavailableError
from nnlat.store.records import ImportReport, Job, JobState, PlatformRecord, StoredModel, StoreStats
from nnlat.store.store import Store
from nnlat.store.url import default_url, resolve_url

__all__ = [
    "ImportReport",
    "Job",
    "JobState",
    "PlatformRecord",
    "Store",
    "StoreError",
    "StoreStats",
    "StoreUnavailableError",
    "StoredModel",
    "default_url",
    "resolve_url",
]
