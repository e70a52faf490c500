"""Benchmark: the REST service under load, on loopback.

Run:  python benchmarks/server_load.py [--db URL] [--broker URL] [--requests 3000]
      [--server-workers 1] [--models 50]

1. Cached queries: ``--models`` tiny models are measured for real (onnxruntime, a short
   protocol) and stored; then clients send ``POST /v1/queries`` for them (each a cache
   hit) with 1, 8 and 32 concurrent connections. Reported: queries per second and the
   p50 / p99 latency a client sees. The server (uvicorn, ``--server-workers``
   processes) is pinned to core 0 and the load generator (asyncio + httpx) to core 1,
   so the two do not share a core.
2. The farm's overhead on a miss (needs ``--broker``; one ``nnlat worker`` pinned to
   core 1): new models are queried one after another; the end-to-end time (``POST``
   until the client sees the job ``done``, polling every 2 ms) minus the worker's own
   time on the job (``measure_seconds``: load, measure, store) is what the service, the
   broker and the database add.

Nothing leaves 127.0.0.1. Each run uses a fresh database (a temporary SQLite file, or
a new schema/database on the ``--db`` server) and its own queue prefix.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from nnlat.graph import graph_key, load
from nnlat.measure.runner import measure, reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.store import Store
from nnlat.testing import tiny_model

SHORT = MeasureSpec(max_time_s=0.3, min_runs=5, warmup_min_runs=2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fresh_database(url: str | None, tmp: Path) -> str:
    """A new, empty database: a SQLite file, or a new PostgreSQL schema / MySQL database."""
    if url is None:
        return f"sqlite:///{tmp / 'bench.db'}"
    import sqlalchemy as sa

    name = f"nnlat_bench_{uuid.uuid4().hex[:10]}"
    base = sa.make_url(url)
    engine = sa.create_engine(base)
    with engine.begin() as connection:
        if base.get_backend_name() == "postgresql":
            connection.exec_driver_sql(f"CREATE SCHEMA {name}")
            fresh = base.update_query_dict({"options": f"-csearch_path={name}"})
        else:
            connection.exec_driver_sql(f"CREATE DATABASE {name} CHARACTER SET utf8mb4")
            fresh = base.set(database=name)
    engine.dispose()
    return fresh.render_as_string(hide_password=False)


def spawn(args: list[str], env: dict[str, str], core: int, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["taskset", "-c", str(core), sys.executable, "-m", "nnlat", *args],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_for(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit(f"the server did not start:\n{log.read_text()}")


def seed(db_url: str, platform: str, count: int) -> list[str]:
    """Measure ``count`` tiny models for real and store them; return their graph hashes."""
    hashes = []
    with Store.open(db_url) as store:
        for i in range(count):
            graph = load(tiny_model(channels=4 + i))
            measurement = measure(graph, platform, SHORT)
            store.upsert_model(graph, keep_onnx=True)
            store.upsert_platform(reference_platform())
            store.add_measurement(measurement)
            hashes.append(graph_key(graph).digest)
    return hashes


async def load_test(
    url: str, platform: str, hashes: list[str], concurrency: int, requests: int
) -> tuple[float, list[float]]:
    """(queries per second, per-request latencies in ms) of ``requests`` cached queries."""
    rng = random.Random(concurrency)
    bodies = [{"graph_hash": rng.choice(hashes), "platform": platform} for _ in range(requests)]
    latencies: list[float] = []
    queue: asyncio.Queue[dict] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:

        async def one_client() -> None:
            while not queue.empty():
                body = queue.get_nowait()
                start = time.perf_counter()
                response = await client.post("/v1/queries", json=body)
                latencies.append((time.perf_counter() - start) * 1e3)
                if response.status_code != 200 or not response.json()["cached"]:
                    raise SystemExit(f"not a cache hit: {response.status_code} {response.text}")

        for body in bodies[: min(50, len(bodies))]:  # warm-up: connections, memo of hashes
            await client.post("/v1/queries", json=body)
        start = time.perf_counter()
        await asyncio.gather(*(one_client() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    return requests / elapsed, latencies


def miss_overhead(url: str, token: str, platform: str, db_url: str, count: int) -> list[float]:
    """End-to-end time of a miss minus the worker's own time on it, in ms, per miss."""
    overheads = []
    headers = {"Authorization": f"Bearer {token}"}
    with (
        httpx.Client(base_url=url, headers=headers, timeout=60) as client,
        Store.open(db_url) as store,
    ):
        for i in range(count):
            model = tiny_model(channels=200 + i).SerializeToString()
            digest = client.post("/v1/models", content=model).json()["graph_hash"]
            start = time.perf_counter()
            answer = client.post("/v1/queries", json={"graph_hash": digest, "platform": platform})
            job_id = answer.json()["job"]["id"]
            while client.get(f"/v1/jobs/{job_id}").json()["job"]["state"] not in ("done", "failed"):
                time.sleep(0.002)
            end_to_end = time.perf_counter() - start
            job = store.jobs.get(job_id)
            assert job is not None and job.state == "done", job
            overheads.append((end_to_end - (job.measure_seconds or 0.0)) * 1e3)
    return overheads


def pct(values: list[float], q: float) -> float:
    """The ``q``-th percentile by nearest rank (never beyond the largest value)."""
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, round(q / 100 * len(ranked)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", default=None, help="a database server URL (default: SQLite)")
    parser.add_argument("--broker", default=None, help="amqp:// or redis:// for the miss test")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--misses", type=int, default=20)
    parser.add_argument("--server-workers", type=int, default=1)
    args = parser.parse_args()
    os.sched_setaffinity(0, {1})
    platform = reference_platform().name
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        db_url = fresh_database(args.db, tmp)
        hashes = seed(db_url, platform, args.models)
        with Store.open(db_url) as store:
            token = store.tokens.create("bench")
        env = {**os.environ, "NNLAT_DB_URL": db_url, "NNLAT_QUEUE_PREFIX": f"bench{os.getpid()}"}
        env.pop("NNLAT_BROKER_URL", None)
        if args.broker:
            env["NNLAT_BROKER_URL"] = args.broker
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        serve = ["serve", "--port", str(port), "--workers", str(args.server_workers)]
        processes.append(spawn(serve, env, 0, tmp / "server.log"))
        try:
            wait_for(url, processes[0], tmp / "server.log")
            backend = Store.open(db_url).url.split("://")[0]
            print(f"server: uvicorn x{args.server_workers} on core 0, {backend}; clients on core 1")
            print(f"{args.requests} cached queries over {len(hashes)} models per row\n")
            print("| concurrent clients | queries/s | p50 ms | p99 ms |")
            print("|---|---|---|---|")
            for concurrency in (1, 8, 32):
                qps, latencies = asyncio.run(
                    load_test(url, platform, hashes, concurrency, args.requests)
                )
                print(
                    f"| {concurrency} | {qps:,.0f} | {statistics.median(latencies):.2f} "
                    f"| {pct(latencies, 99):.2f} |"
                )
            if args.broker:
                worker = ["worker", "-p", platform, "--name", "bench@local"]
                processes.append(spawn(worker, env, 1, tmp / "worker.log"))
                time.sleep(8)  # the worker connects and declares its queue
                overheads = miss_overhead(url, token, platform, db_url, args.misses)
                print(
                    f"\nmiss overhead (end to end minus the worker's time), {args.misses} misses: "
                    f"median {statistics.median(overheads):.1f} ms, "
                    f"p90 {pct(overheads, 90):.1f} ms, max {max(overheads):.1f} ms"
                )
        finally:
            for process in processes:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)


if __name__ == "__main__":
    main()
