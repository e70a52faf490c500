"""``POST /v1/queries``: a cached result (200), or a job measuring it (202)."""

from __future__ import annotations

from fastapi import APIRouter, status
from fastapi.responses import JSONResponse

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
def submit_query(body: QueryRequest, service: ServiceDep, who: CallerDep) -> JSONResponse:
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
    # The hot path of a busy server: the body is built here, already JSON-shaped, rather
    # than validated again against QueryResponse (the schema it follows).
    if isinstance(answer, QueryResult):
        return JSONResponse({"status": "done", "cached": True, **result_fields(answer)})
    return JSONResponse(
        {"status": "pending", "cached": False, "job": answer.job.model_dump(mode="json")},
        status_code=status.HTTP_202_ACCEPTED,
        headers={"Location": f"/v1/jobs/{answer.job.id}"},
    )
