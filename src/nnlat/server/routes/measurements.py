"""``GET /v1/measurements``: stored measurements, filtered and paginated."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from nnlat.server.deps import CallerDep, ServiceDep
from nnlat.server.schemas import FAMILY, GRAPH_HASH, MAX_OFFSET, MAX_PAGE, PLATFORM, Page

router = APIRouter(tags=["measurements"])


@router.get("/measurements", response_model=Page[dict[str, Any]])
def list_measurements(
    service: ServiceDep,
    _: CallerDep,
    platform: Annotated[str | None, Query(pattern=PLATFORM)] = None,
    family: Annotated[str | None, Query(pattern=FAMILY)] = None,
    graph_hash: Annotated[str | None, Query(pattern=GRAPH_HASH)] = None,
    status: Literal["ok", "failed", "unsupported", "any"] = "ok",
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> Page[dict[str, Any]]:
    """Stored measurements, oldest first, a page at a time."""
    found = service.store.list_measurements(
        platform,
        family,
        None if status == "any" else status,
        graph_hash=graph_hash,
        limit=limit + 1,
        offset=offset,
    )
    return Page(
        items=[m.model_dump(mode="json") for m in found[:limit]],
        limit=limit,
        offset=offset,
        next_offset=offset + limit if len(found) > limit else None,
    )
