"""Run the fuzz corpus through ``nnlat inspect``, ``query`` and ``POST /v1/models``.

Started by ``test_fuzz_corpus.py`` as its own process under an address-space limit
(``RLIMIT_AS``), so a file that tried to take more memory fails here, not the test run.
Writes one JSON line per file: its outcome for each of the three, its wall time and the
peak memory so far of this process and of its forked children. Usage::

    python tests/fuzz/run_corpus.py OUT.jsonl FILE...
"""

from __future__ import annotations

import json
import resource
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).parent))

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from nnlat.cli.main import app as cli
from nnlat.errors import NnlatError
from nnlat.farm import LocalDispatcher
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.querying.engine import QueryEngine
from nnlat.server import create_app
from nnlat.settings import Settings
from nnlat.store import Store

FAKE = "fake-fake1.0-fp32-t1"
FILE_TIMEOUT_S = 30  # the ceiling per file, for the three targets together


class FileTimeout(BaseException):
    """A file took longer than the ceiling."""


def _expire(signum: int, frame: FrameType | None) -> None:
    raise FileTimeout


def _one_line(text: str) -> bool:
    return bool(text.strip()) and "\n" not in text.strip()


def run_inspect(runner: CliRunner, path: Path) -> dict[str, object]:
    result = runner.invoke(cli, ["inspect", str(path), "--json"])
    if result.exit_code == 0:
        return {"outcome": "ok", "hash": json.loads(result.stdout).get("graph_hash")}
    error = result.stderr.strip()
    if result.exit_code == 2 and error.startswith("error:") and _one_line(error):
        return {"outcome": "clean", "message": error}
    trace = "".join(traceback.format_exception(result.exception)) if result.exception else ""
    return {"outcome": "bad", "message": error or result.stdout, "trace": trace[-2000:]}


def run_query(engine: QueryEngine, path: Path) -> dict[str, object]:
    try:
        result = engine.query(path, FAKE)
    except NnlatError as exc:
        ok = _one_line(str(exc))
        return {"outcome": "clean" if ok else "bad", "message": str(exc)}
    except Exception as exc:
        trace = "".join(traceback.format_exception(exc))
        return {"outcome": "bad", "message": f"{type(exc).__name__}: {exc}", "trace": trace[-2000:]}
    return {"outcome": "ok", "hash": result.measurement.graph_hash}


def run_upload(http: TestClient, token: str, path: Path) -> dict[str, object]:
    response = http.post(
        "/v1/models", content=path.read_bytes(), headers={"Authorization": f"Bearer {token}"}
    )
    if response.status_code == 201:
        return {"outcome": "ok", "hash": response.json()["graph_hash"]}
    detail = response.json().get("detail", "") if response.content else ""
    clean = 400 <= response.status_code < 500 and isinstance(detail, str) and _one_line(detail)
    return {
        "outcome": "clean" if clean else "bad",
        "status": response.status_code,
        "message": detail,
    }


def main(out: Path, files: list[Path]) -> None:
    work = Path(tempfile.mkdtemp())
    runner = CliRunner()
    fake = backend_registry({"fake": FakeBackend})
    engine = QueryEngine(
        Store.open(f"sqlite:///{work / 'query.db'}"), MeasureSpec(max_time_s=0.05), backends=fake
    )
    store = Store.open(f"sqlite:///{work / 'server.db'}")
    token = store.tokens.create("fuzz")
    dispatcher = LocalDispatcher(store, MeasureSpec(max_time_s=0.05), backends=fake)
    server = create_app(Settings(db_url=str(store.url)), store=store, dispatcher=dispatcher)
    signal.signal(signal.SIGALRM, _expire)
    with TestClient(server) as http, out.open("w") as lines:
        for path in files:
            record: dict[str, object] = {"file": path.name, "bytes": path.stat().st_size}
            started = time.perf_counter()
            signal.alarm(FILE_TIMEOUT_S)
            try:
                record["inspect"] = run_inspect(runner, path)
                record["query"] = run_query(engine, path)
                record["upload"] = run_upload(http, token, path)
            except FileTimeout:
                record["timeout"] = True
            finally:
                signal.alarm(0)
            record["seconds"] = round(time.perf_counter() - started, 3)
            peak_kib = max(
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
            )
            record["peak_rss_mib"] = round(peak_kib / 1024, 1)
            lines.write(json.dumps(record) + "\n")
            lines.flush()
        record = {"health": http.get("/v1/health").status_code}
        lines.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(a) for a in sys.argv[2:]])
