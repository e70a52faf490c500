"""``GET /v1/jobs/{id}``: a measurement job's state and, once done, its result."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from nnlat.server.deps import CallerDep, ServiceDep
from nnlat.server.routes.queries import result_fields
from nnlat.server.schemas import JobResponse

router = APIRouter(tags=["queries"])


@router.get("/jobs/{job_id}", response_model=JobResponse)
def get_job(
    service: ServiceDep, _: CallerDep, job_id: Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")]
) -> JobResponse:
    """The job: ``queued``, ``running``, ``done`` (with the result) or ``failed`` (``error``)."""
    job, result = service.job(job_id)
    if result is None:
        return JobResponse(job=job)
    return JobResponse(job=job, **result_fields(result))
