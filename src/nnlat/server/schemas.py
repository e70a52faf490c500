"""Request and response bodies of the REST API (pydantic; they make the OpenAPI schema)."""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from nnlat.store import Job, StoredModel

T = TypeVar("T")

GRAPH_HASH = r"^[0-9a-f]{16}$"
PLATFORM = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
FAMILY = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
INPUT_NAME_MAX = 256
MAX_PAGE = 1000
MAX_OFFSET = 1 << 31
"""Listings stop here: every database takes it, and no server holds that many rows."""


class QueryRequest(BaseModel):
    """``POST /v1/queries`` and ``POST /v1/predictions``: which model, where, what shapes."""

    model_config = ConfigDict(extra="forbid")

    graph_hash: str = Field(pattern=GRAPH_HASH, description="A model stored on the server.")
    platform: str = Field(pattern=PLATFORM, examples=["epyc-ort1.31-fp32-t1"])
    batch_size: int = Field(default=1, ge=1, le=65536)
    input_shapes: dict[str, list[int]] = Field(
        default_factory=dict, max_length=64, description="Input name → shape overrides."
    )
    refresh: bool = Field(default=False, description="Measure again and replace the result.")


class PredictRequest(BaseModel):
    """``POST /v1/predictions``: which stored model, which platform, what shapes."""

    model_config = ConfigDict(extra="forbid")

    graph_hash: str = Field(pattern=GRAPH_HASH, description="A model stored on the server.")
    platform: str | None = Field(
        default=None, pattern=PLATFORM, description="Default: the predictor's first platform."
    )
    batch_size: int = Field(default=1, ge=1, le=65536)
    input_shapes: dict[str, list[int]] = Field(default_factory=dict, max_length=64)


class QueryResponse(BaseModel):
    """A query's answer: ``done`` with the result, or ``pending`` with the job to poll."""

    status: Literal["done", "pending"]
    cached: bool
    result: dict[str, Any] | None = Field(
        default=None, description="As `nnlat query --json` prints it."
    )
    measurement: dict[str, Any] | None = Field(
        default=None, description="The full stored measurement."
    )
    job: Job | None = None


class JobResponse(BaseModel):
    """A job and, once ``done``, its result."""

    job: Job
    result: dict[str, Any] | None = None
    measurement: dict[str, Any] | None = None


class ModelSummary(BaseModel):
    """A stored model, without its ONNX or source bytes."""

    graph_hash: str
    family: str | None
    tags: tuple[str, ...]
    onnx_size: int
    source_format: str | None = Field(
        default=None, description='"tflite" when the original file is kept; null for ONNX.'
    )
    flops: int
    macs: int
    params: int
    bytes_moved: int
    nodes: int
    kernels: int
    op_counts: dict[str, int]
    unknown_ops: dict[str, int]

    @classmethod
    def of(cls, model: StoredModel) -> ModelSummary:
        """The summary of a stored model."""
        return cls(**model.model_dump(include=set(cls.model_fields)))


class Page(BaseModel, Generic[T]):
    """One page of a listing; ``next_offset`` is None on the last page."""

    items: list[T]
    limit: int
    offset: int
    next_offset: int | None


class PlatformInfo(BaseModel):
    """A platform the server knows (stored) or can measure (live workers)."""

    name: str
    hardware: str | None = None
    runtime: str | None = None
    runtime_version: str | None = None
    dtype: str | None = None
    threads: int | None = None
    device: str | None = None
    registered: bool
    workers: int


class Health(BaseModel):
    """``GET /v1/health``."""

    status: Literal["ok", "degraded"]
    version: str
    database: Literal["ok", "unreachable"]
    farm: Literal["celery", "local"]


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer: what went wrong and what to do."""

    detail: str
