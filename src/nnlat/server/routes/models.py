"""``/v1/models``: upload a model (ONNX or TFLite as the request body), list and read models."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request, status
from fastapi.concurrency import run_in_threadpool

from nnlat.errors import ModelTooLargeError
from nnlat.server.deps import CallerDep, ServiceDep, WriterDep
from nnlat.server.schemas import FAMILY, GRAPH_HASH, MAX_OFFSET, MAX_PAGE, ModelSummary, Page

router = APIRouter(tags=["models"])


@router.post(
    "/models",
    status_code=status.HTTP_201_CREATED,
    response_model=ModelSummary,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    },
)
async def upload_model(
    request: Request,
    service: ServiceDep,
    _: WriterDep,
    family: Annotated[str | None, Query(pattern=FAMILY)] = None,
) -> ModelSummary:
    """Store an ONNX or TFLite model (one self-contained file).

    The body is the file itself (``curl --data-binary @model.onnx``, or ``@model.tflite``);
    the format is told from the bytes. It is checked — size, a real ONNX or TFLite model,
    no external-data references — before anything is stored. An ONNX model is kept
    weight-free; a TFLite model keeps its original file too, which LiteRT and Vela
    platforms measure. The answer carries the ``graph_hash`` to query with.
    """
    limit = service.max_upload_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ModelTooLargeError(
            f"the upload is {int(declared):,} bytes, over the limit of {limit:,}"
        )
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ModelTooLargeError(f"the upload is over the limit of {limit:,} bytes")
    if not body:
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST,
            "empty body: send the ONNX or TFLite file as the request body",
        )
    model = await run_in_threadpool(service.add_model, bytes(body), family)
    return ModelSummary.of(model)


@router.get("/models", response_model=Page[ModelSummary])
def list_models(
    service: ServiceDep,
    _: CallerDep,
    family: Annotated[str | None, Query(pattern=FAMILY)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> Page[ModelSummary]:
    """Stored models, oldest first, a page at a time."""
    models = service.store.list_models(family, limit=limit + 1, offset=offset)
    return Page(
        items=[ModelSummary.of(m) for m in models[:limit]],
        limit=limit,
        offset=offset,
        next_offset=offset + limit if len(models) > limit else None,
    )


@router.get("/models/{graph_hash}", response_model=ModelSummary)
def get_model(
    service: ServiceDep, _: CallerDep, graph_hash: Annotated[str, Path(pattern=GRAPH_HASH)]
) -> ModelSummary:
    """One stored model."""
    model = service.store.get_model(graph_hash)
    if model is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no model {graph_hash} on this server")
    return ModelSummary.of(model)
