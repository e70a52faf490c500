"""``GET /v1/platforms``: stored platforms and those with live workers."""

from __future__ import annotations

from fastapi import APIRouter

from nnlat.server.deps import CallerDep, ServiceDep
from nnlat.server.schemas import PlatformInfo

router = APIRouter(tags=["platforms"])


@router.get("/platforms", response_model=list[PlatformInfo])
def list_platforms(service: ServiceDep, _: CallerDep) -> list[PlatformInfo]:
    """Every platform the server has results for or can measure on (``workers`` > 0)."""
    live = service.dispatcher.live_platforms()
    stored = {r.platform.name: r.platform for r in service.store.list_platforms()}
    rows = []
    for name in sorted(stored.keys() | live.keys()):
        p = stored.get(name)
        identity = {} if p is None else p.model_dump(include=set(PlatformInfo.model_fields))
        rows.append(
            PlatformInfo(
                **{**identity, "name": name},
                registered=p is not None,
                workers=live.get(name, 0),
            )
        )
    return rows
