"""A real farm for integration tests: ``nnlat serve`` and ``nnlat worker`` processes.

A module of its own, not a ``conftest``: pytest imports every ``conftest`` under the
one name, and the server tests have theirs.

They talk through a real broker (RabbitMQ or Redis on localhost) and a real database;
each test gets its own queue prefix, so runs never take each other's jobs. Processes
run in their own session and are killed as a group at the end.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from nnlat.measure.runner import reference_platform

BROKERS = {
    "rabbitmq": os.environ.get("NNLAT_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//"),
    "redis": os.environ.get("NNLAT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _check_broker(url: str) -> None:
    from kombu import Connection

    try:
        with Connection(url, connect_timeout=3) as connection:
            connection.ensure_connection(max_retries=1)
    except Exception as exc:
        message = f"broker {url} is unreachable ({type(exc).__name__}: {exc})"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{message}; CI must provide the broker services", pytrace=False)
        pytest.skip(message)


class Farm:
    """Starts and stops the server and workers of one test."""

    def __init__(self, tmp_path: Path, db_url: str, broker_url: str) -> None:
        _check_broker(broker_url)
        self.platform = reference_platform().name
        self.db_url = db_url
        self.logs = tmp_path
        self.env = {
            **os.environ,
            "NNLAT_DB_URL": db_url,
            "NNLAT_BROKER_URL": broker_url,
            "NNLAT_QUEUE_PREFIX": f"test{uuid.uuid4().hex[:12]}",
            "NNLAT_MEASURE_MAX_TIME_S": "3",
            "NNLAT_JOB_RETRIES": "2",
            "NNLAT_RETRY_BACKOFF_S": "0.5",
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.url = ""

    def _spawn(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        log = (self.logs / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "nnlat", *args],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killed whole
        )
        self.processes[name] = process
        return process

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def start_server(self) -> str:
        port = _free_port()
        process = self._spawn("server", "serve", "--port", str(port))
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"the server exited:\n{self.log('server')}")
            try:
                if httpx.get(f"{self.url}/v1/health", timeout=1).status_code == 200:
                    return self.url
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"the server did not start:\n{self.log('server')}")

    def start_worker(self, name: str) -> subprocess.Popen[bytes]:
        process = self._spawn(name, "worker", "-p", self.platform, "--name", f"{name}@test")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"worker {name} exited:\n{self.log(name)}")
            if "ready." in self.log(name):
                return process
            time.sleep(0.2)
        raise AssertionError(f"worker {name} did not start:\n{self.log(name)}")

    def kill(self, name: str) -> None:
        """SIGKILL a process and its children (a worker's pool process included)."""
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def report(self, lines: int = 60) -> str:
        """The end of every process's log (printed at teardown: pytest shows it on failure)."""
        parts = []
        for path in sorted(self.logs.glob("*.log")):
            tail = path.read_text(errors="replace").splitlines()[-lines:]
            parts.append(f"--- {path.name} (last {len(tail)} lines)\n" + "\n".join(tail))
        return "\n".join(parts)

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for name, process in list(self.processes.items()):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            del self.processes[name]
