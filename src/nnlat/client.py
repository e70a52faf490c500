"""``nnlat.Client``: the REST service from Python, with the local API's signatures.

``Client(url, token).query(model, platform)`` answers like :func:`nnlat.query` (a
:class:`~nnlat.querying.engine.QueryResult`), ``.predict(...)`` like
:func:`nnlat.predict`. A model is loaded and hashed here; it is uploaded (weight-free,
so a 100 MB ONNX file sends kilobytes; a TFLite file whole, since LiteRT and Vela run it)
only when the server does not know it yet. With ``wait=False`` a query returns a
:class:`~nnlat.store.Job` at once, whether it must be measured or is already cached (then
the job is ``done``); :meth:`Client.result` gives its result either way.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self

import httpx

from nnlat.errors import NnlatError

if TYPE_CHECKING:
    from nnlat.graph.ir import Graph

_GRAPH_HASH = re.compile(r"^[0-9a-f]{16}$")


class RemoteError(NnlatError):
    """The server refused a request; the message is the server's own.

    Attributes:
        status_code: the HTTP status (0 when the server could not be reached).
    """

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


class Client:
    """A connection to an nnlat server.

    Args:
        url: the server, e.g. ``http://nnlat.example:8000``.
        token: an API token (needed to upload and to measure; to read, where the
            server closes reads).
        timeout_s: per-request timeout.
        transport: an httpx transport (tests pass the app's ASGI transport).

    Example:
        >>> import tempfile
        >>> from fastapi.testclient import TestClient
        >>> from nnlat.server import create_app
        >>> from nnlat.settings import Settings
        >>> app = create_app(Settings(db_url=f"sqlite:///{tempfile.mkdtemp()}/nnlat.db"))
        >>> with TestClient(app) as http:  # a real server would be Client("http://host:8000")
        ...     Client.of(http).stats()["models"]
        0
    """

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout_s: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(
            base_url=url.rstrip("/") + "/v1",
            headers=headers,
            timeout=timeout_s,
            transport=transport,
        )
        self._known: set[str] = set()  # graph hashes the server is known to hold
        self._answered: dict[str, Any] = {}  # finished jobs of cache hits → their result

    @classmethod
    def of(cls, http: httpx.Client, token: str | None = None) -> Self:
        """A client over an existing httpx client (e.g. FastAPI's ``TestClient``)."""
        client = cls.__new__(cls)
        if not str(http.base_url).rstrip("/").endswith("/v1"):
            http.base_url = str(http.base_url).rstrip("/") + "/v1"
        if token:
            http.headers["Authorization"] = f"Bearer {token}"
        client._http, client._known, client._answered = http, set(), {}
        return client

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise RemoteError(
                f"cannot reach the nnlat server at {self._http.base_url}: {exc}", 0
            ) from exc
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail", response.text)
            except ValueError:
                detail = response.text
            if not isinstance(detail, str):  # FastAPI's validation errors are a list
                detail = "; ".join(
                    f"{'.'.join(map(str, d.get('loc', [])))}: {d.get('msg')}" for d in detail
                )
            raise RemoteError(
                f"server answered {response.status_code}: {detail}", response.status_code
            )
        return response

    def upload(self, model: Any, family: str | None = None) -> str:
        """Store ``model`` on the server; return its graph hash.

        An ONNX model (or anything else :func:`nnlat.load` reads) is sent weight-free; a
        TFLite model is sent as its original file, which LiteRT and Vela platforms run.
        """
        from nnlat.graph import load

        return self._upload_graph(load(model), family)

    def _upload_graph(self, graph: Graph, family: str | None = None) -> str:
        tflite = graph.source_format == "tflite"
        params = {"family": family} if family else {}
        response = self._request(
            "POST",
            "/models",
            content=graph.source_bytes if tflite else graph.onnx_bytes,
            params=params,
            headers={"Content-Type": "application/octet-stream"},
        )
        digest: str = response.json()["graph_hash"]
        self._known.add(digest)
        return digest

    def _with_model(self, model: Any, call: Any) -> Any:
        """Run ``call(graph_hash)``; upload the model first if the server lacks it."""
        if isinstance(model, str) and _GRAPH_HASH.match(model):
            return call(model)
        from nnlat.graph import graph_key, load

        graph = load(model)
        digest = graph_key(graph).digest
        if digest not in self._known:
            try:
                return call(digest)
            except RemoteError as exc:
                if exc.status_code != 404 or "no model" not in str(exc):
                    raise
            digest = self._upload_graph(graph)
        return call(digest)

    # -- the local API's calls ----------------------------------------------------------

    def query(
        self,
        model: Any,
        platform: str,
        batch_size: int = 1,
        input_shapes: Mapping[str, Sequence[int]] | None = None,
        *,
        refresh: bool = False,
        wait: bool = True,
        timeout_s: float | None = None,
    ) -> Any:
        """The true latency of ``model`` on ``platform``, as :func:`nnlat.query` gives it.

        Args:
            model: what :func:`nnlat.load` accepts, or a graph hash the server holds.
            platform: a platform with workers on the server (``nnlat platforms --server``).
            batch_size: dimension 0 of every input.
            input_shapes: input name → shape overrides.
            refresh: measure again and replace the stored result.
            wait: block until a needed measurement is done; False returns a job at once.
            timeout_s: how long to wait (None: without limit).

        Returns:
            A :class:`~nnlat.querying.engine.QueryResult`; with ``wait=False`` a
            :class:`~nnlat.store.Job` instead, cached or not (a cache hit gives a job
            already ``done``), whose result :meth:`result` returns.
        """
        body = {
            "platform": platform,
            "batch_size": batch_size,
            "input_shapes": {k: list(v) for k, v in (input_shapes or {}).items()},
            "refresh": refresh,
        }
        answer = self._with_model(
            model,
            lambda h: self._request("POST", "/queries", json={**body, "graph_hash": h}).json(),
        )
        from nnlat.store import Job

        if answer["status"] == "done":
            result = _query_result(answer, cached=True)
            return result if wait else self._finished_job(result)

        job = Job.model_validate(answer["job"])
        return self.result(job, timeout_s=timeout_s) if wait else job

    def _finished_job(self, result: Any) -> Any:
        """A ``done`` job for a cache hit, its result kept here for :meth:`result`."""
        from nnlat.store import Job

        m = result.measurement
        now = datetime.now(UTC)
        job = Job(
            id=uuid.uuid4().hex,  # no job ran on the server: this client alone knows it
            graph_hash=m.graph_hash,
            platform=m.platform,
            batch_size=m.batch_size,
            input_shapes=m.input_shapes,
            protocol_version=m.protocol_version,
            state="done",
            measurement_status=m.status,
            created_at=now,
            finished_at=now,
        )
        self._answered[job.id] = (job, result)
        return job

    def job(self, job_id: str) -> Any:
        """The job's current state (a :class:`~nnlat.store.Job`)."""
        from nnlat.store import Job

        if job_id in self._answered:
            return self._answered[job_id][0]
        return Job.model_validate(self._request("GET", f"/jobs/{job_id}").json()["job"])

    def result(self, job: Any, *, timeout_s: float | None = None, poll_s: float = 0.05) -> Any:
        """Wait for ``job`` (or its id) and return its :class:`QueryResult`.

        Raises:
            RemoteError: the job failed, or ``timeout_s`` passed first.
        """
        job_id = job if isinstance(job, str) else job.id
        if job_id in self._answered:
            return self._answered[job_id][1]
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        delay = poll_s
        while True:
            answer = self._request("GET", f"/jobs/{job_id}").json()
            state = answer["job"]["state"]
            if state == "done" and answer.get("measurement"):
                return _query_result(answer, cached=False)
            if state == "failed":
                raise RemoteError(f"job {job_id} failed: {answer['job']['error']}", 200)
            if deadline is not None and time.monotonic() > deadline:
                raise RemoteError(f"job {job_id} is still {state} after {timeout_s:g} s", 0)
            time.sleep(delay)
            delay = min(delay * 1.5, 1.0)  # quick for short jobs, gentle for long ones

    def predict(
        self,
        model: Any,
        platform: str | None = None,
        batch_size: int = 1,
        input_shapes: Mapping[str, Sequence[int]] | None = None,
    ) -> Any:
        """A latency estimate from the server's predictor (a :class:`Prediction`)."""
        from nnlat.predictor.api import Prediction

        body = {
            "platform": platform,
            "batch_size": batch_size,
            "input_shapes": {k: list(v) for k, v in (input_shapes or {}).items()},
        }
        answer = self._with_model(
            model,
            lambda h: self._request("POST", "/predictions", json={**body, "graph_hash": h}).json(),
        )
        return Prediction.model_validate(answer)

    def stats(self) -> dict[str, Any]:
        """The server database's statistics (``nnlat db stats``)."""
        result: dict[str, Any] = self._request("GET", "/stats").json()
        return result

    def platforms(self) -> list[dict[str, Any]]:
        """Platforms the server knows, with ``workers``: how many are live for each."""
        result: list[dict[str, Any]] = self._request("GET", "/platforms").json()
        return result

    def health(self) -> dict[str, Any]:
        """The server's health answer."""
        result: dict[str, Any] = self._request("GET", "/health").json()
        return result


def _query_result(answer: Mapping[str, Any], cached: bool) -> Any:
    from nnlat.measure.types import Measurement
    from nnlat.querying.engine import QueryResult

    return QueryResult(cached=cached, measurement=Measurement.model_validate(answer["measurement"]))
