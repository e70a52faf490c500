"""The device farm: jobs measured by workers that each hold one device.

:mod:`~nnlat.farm.execute` is what a worker does with a job (load, measure, store),
:mod:`~nnlat.farm.dispatch` how a job reaches a worker (Celery queues, or a thread of the
server when no broker is configured), :mod:`~nnlat.farm.routing` which queue serves
which platform, :mod:`~nnlat.farm.celery_app` the Celery application and its one task,
and :mod:`~nnlat.farm.worker` how a device host joins.
"""

from nnlat.farm.dispatch import Dispatcher, FarmUnavailableError, LocalDispatcher
from nnlat.farm.execute import JobFailedError, execute_job

__all__ = ["Dispatcher", "FarmUnavailableError", "JobFailedError", "LocalDispatcher", "execute_job"]
