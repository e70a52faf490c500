"""Damaged and hostile models against ``inspect``, ``query`` and ``POST /v1/models``.

The corpus (:mod:`corpus`) is made at test time from a seed and run by
``run_corpus.py`` in a process of its own under a 2 GiB address-space limit, with a
30 s alarm per file: a model that wanted more memory or time fails there. Every file
must give each of the three a clean error (one line: exit code 2 with ``error: ...``,
an ``NnlatError``, a 4xx with a detail) or a result, never a traceback or a 5xx, and
the server must still answer afterwards. The default run takes one file of every kind;
the full corpus of 300 is marked ``slow``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from corpus import make_corpus

RUNNER = Path(__file__).parent / "run_corpus.py"
MEMORY_CEILING_BYTES = 2 << 30
TARGETS = ("inspect", "query", "upload")


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CEILING_BYTES, MEMORY_CEILING_BYTES))


def run_corpus(tmp_path: Path, count: int, seed: int) -> list[dict]:
    # Made here, outside the ceiling: building the fan-out kinds takes memory itself.
    files = make_corpus(tmp_path / "corpus", count, seed)
    out = tmp_path / "results.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2] / "src"), *sys.path]),
        # Thread pools reserve address space per thread; the ceiling is for the models.
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(out), *map(str, files)],
        env=env,
        preexec_fn=_cap_memory,
        capture_output=True,
        text=True,
        timeout=40 * count + 120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads(line) for line in out.read_text().splitlines()]


def check(records: list[dict]) -> Counter[str]:
    """Assert every file's outcome; return the outcome counts (for the report)."""
    *files, last = records
    assert last == {"health": 200}, "the server stopped serving"
    outcomes: Counter[str] = Counter()
    for record in files:
        assert not record.get("timeout"), f"{record['file']}: over the 30 s ceiling"
        for target in TARGETS:
            result = record[target]
            assert result["outcome"] in ("ok", "clean"), (record["file"], target, result)
            outcomes[f"{target}:{result['outcome']}"] += 1
        # The CLI and the service validate alike: a file is accepted by both or neither,
        # under the same hash (query applies batch size 1, so its hash may differ), except
        # that an upload is one file: external data it may not refer to at all.
        inspect, upload = record["inspect"], record["upload"]
        if not record["file"].startswith("external-"):
            assert inspect["outcome"] == upload["outcome"], record
        if inspect["outcome"] == upload["outcome"] == "ok":
            assert inspect["hash"] == upload["hash"], record
        if record["file"].startswith("valid-"):
            assert all(record[t]["outcome"] == "ok" for t in TARGETS), record
    return outcomes


@pytest.mark.slow
def test_one_of_every_kind(tmp_path: Path) -> None:
    records = run_corpus(tmp_path, count=23, seed=1)  # one of every kind
    outcomes = check(records)
    assert outcomes["inspect:clean"] >= 16  # the hostile kinds are refused, not passed


@pytest.mark.slow
def test_the_full_corpus(tmp_path: Path) -> None:
    records = run_corpus(tmp_path, count=300, seed=29)
    check(records)
    (tmp_path / "summary.json").write_text(json.dumps(records))
