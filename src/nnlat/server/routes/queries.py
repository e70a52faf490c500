"""``POST /v1/queries``: a cached result (200), or a job measuring it (202)."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from nnlat.querying.engine import QueryResult
from nnlat.server.deps import CallerDep, ServiceDep
from nnlat.server.schemas import QueryRequest, QueryResponse

router = APIRouter(tags=["queries"])


def result_fields(result: QueryResult) -> dict[str, object]:
    """The result in two forms: the CLI's JSON, and the full measurement."""
    return {"result": result.to_dict(), "measurement": result.measurement.model_dump(mode="json")}


@router.post(
    "/queries",
    response_model=QueryResponse,
    responses={202: {"model": QueryResponse, "description": "Being measured: poll the job."}},
)
def submit_query(
    body: QueryRequest, response: Response, service: ServiceDep, who: CallerDep
) -> QueryResponse:
    """The true latency of a stored model on a platform.

    Served from the database when measured before (anyone may read, unless the server
    closes reads); otherwise a job is queued on the platform's workers (this needs a
    token) and the answer is ``202`` with the job to poll at ``/v1/jobs/{id}``. Identical
    queries share one job.
    """
    answer = service.query(
        body.graph_hash,
        body.platform,
        body.batch_size,
        body.input_shapes,
        refresh=body.refresh,
        may_measure=who.can_write,
    )
    if isinstance(answer, QueryResult):
        return QueryResponse(status="done", cached=True, **result_fields(answer))
    response.status_code = status.HTTP_202_ACCEPTED
    response.headers["Location"] = f"/v1/jobs/{answer.job.id}"
    return QueryResponse(status="pending", cached=False, job=answer.job)
