"""What routes depend on: the query service, the settings, and who is calling.

Tokens travel as ``Authorization: Bearer <token>``. A wrong token is always refused
(403); a missing one is refused (401) where the route writes, or everywhere when reads
are closed (``NNLAT_OPEN_READS=false``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request, status
from fastapi.concurrency import run_in_threadpool

from nnlat.querying.service import QueryService
from nnlat.settings import Settings

TOKEN_HINT = (
    "send `Authorization: Bearer <token>`; an admin creates one with `nnlat token create NAME`"
)


@dataclass(frozen=True)
class Caller:
    """Who is calling: the token's name, or None for an anonymous reader."""

    token_name: str | None

    @property
    def can_write(self) -> bool:
        """True for a caller with a valid token."""
        return self.token_name is not None


# Dependencies that do no I/O are ``async def``: FastAPI would run a plain ``def`` in a
# worker thread, a hop that costs more than the dependency itself.


async def get_service(request: Request) -> QueryService:
    """The application's query service."""
    service: QueryService = request.app.state.service
    return service


async def get_settings(request: Request) -> Settings:
    """The application's settings."""
    settings: Settings = request.app.state.settings
    return settings


async def caller(
    service: Annotated[QueryService, Depends(get_service)],
    settings: Annotated[Settings, Depends(get_settings)],
    authorization: Annotated[str | None, Header()] = None,
) -> Caller:
    """The caller of a reading route (anonymous allowed when reads are open)."""
    if authorization is None:
        if settings.open_reads:
            return Caller(None)
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, f"this server needs a token: {TOKEN_HINT}"
        )
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, f"malformed Authorization header: {TOKEN_HINT}"
        )
    name = await run_in_threadpool(service.store.tokens.verify, token.strip())
    if name is None:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "invalid or revoked API token")
    return Caller(name)


async def writer(who: Annotated[Caller, Depends(caller)]) -> Caller:
    """The caller of a writing route: must hold a valid token."""
    if not who.can_write:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, f"writing needs a token: {TOKEN_HINT}")
    return who


ServiceDep = Annotated[QueryService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
CallerDep = Annotated[Caller, Depends(caller)]
WriterDep = Annotated[Caller, Depends(writer)]
