"""COBRA's two measurement campaigns, resumable, into gzip JSON Lines files.

* :func:`measure_layers`: the *layers* dataset: random Table 4 layers
  (:mod:`nnlat.zoo.cobra.layers`), each one snippet timed alone;
* :func:`measure_networks`: the *networks* dataset: random ResNet-like networks
  (:mod:`nnlat.zoo.cobra.networks`), de-duplicated by graph hash (each candidate is
  exported to ONNX and hashed with :func:`nnlat.graph.graph_key`: isomorphic networks
  hash alike), each built from its generated source file and timed whole;
* :func:`measure_snippets`: the optional per-layer pass over the networks: every
  distinct snippet the interpreter extracts from their code, timed alone (what the
  calibrated layer-wise sum and BRP-NAS++ read).

Both time with the project's protocol (:func:`nnlat.measure.runner.measure`: warm-up
until settled, then runs until the median's 95 % interval is tight or the budget is
spent), on the torch backend, which runs a zoo variant from its own PyTorch definition —
here the snippet or the generated source.

Draw ``i`` of a campaign uses ``random.Random(f"{seed}:{i}")``, so a restarted campaign
draws the same items and skips those already in the file. Records are appended as gzip
members (a batch at a time); a member cut short by a crash is dropped, and the file
truncated to its last whole member, when the campaign resumes.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from nnlat.graph.hashing import graph_key
from nnlat.measure.backends.registry import BackendFactory
from nnlat.measure.runner import measure
from nnlat.measure.types import Measurement, MeasureSpec
from nnlat.registry import Registry
from nnlat.zoo.cobra.layers import LAYERS, SNIPPETS, layer_snippet
from nnlat.zoo.cobra.networks import NETWORKS, code_graph, network_source

# Thousands of layers of ~1-50 ms: the campaign budget of nnlat.datasets.CAMPAIGN_SPEC,
# with half its timing time (each layer is one call, and there are 50,000 of them).
LAYER_SPEC = MeasureSpec(warmup_min_runs=3, warmup_max_s=0.5, min_runs=10, max_time_s=0.5)
NETWORK_SPEC = MeasureSpec(warmup_min_runs=3, warmup_max_s=1.0, min_runs=10, max_time_s=1.0)
# The per-layer pass times every distinct layer of 2,000 networks (~35 each): a lighter
# budget than the layers dataset's, as its figures only feed baselines (~0.25 s a layer).
SNIPPET_SPEC = MeasureSpec(warmup_min_runs=2, warmup_max_s=0.1, min_runs=5, max_time_s=0.2)
PLATFORM = "xeon-torch2.13-fp32-t1"

OnRecord = Callable[[dict[str, Any]], None]


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a campaign file; a truncated last gzip member is cut off the file.

    Args:
        path: a ``.jsonl.gz`` file of concatenated gzip members (missing: no records).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "r.jsonl.gz"
        >>> append_records(p, [{"index": 0}]); append_records(p, [{"index": 1}])
        >>> [r["index"] for r in read_records(p)]
        [0, 1]
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    offset = 0
    while offset < len(data):
        member = zlib.decompressobj(wbits=31)
        try:
            text = member.decompress(data[offset:])
        except zlib.error:
            break
        if not member.eof:
            break  # cut short: everything from here on is dropped
        records.extend(json.loads(line) for line in text.decode().splitlines() if line)
        offset = len(data) - len(member.unused_data)
    if offset < len(data):
        with path.open("r+b") as handle:
            handle.truncate(offset)
    return records


def append_records(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Append ``records`` to ``path`` as one gzip member of JSON lines (one write)."""
    lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    if not lines:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(gzip.compress(lines.encode(), mtime=0))


def result_fields(measurement: Measurement) -> dict[str, Any]:
    """What a record keeps of a measurement: status, latency (median ms) and statistics."""
    stats = measurement.stats
    return {
        "platform": measurement.platform,
        "graph_hash": measurement.graph_hash,
        "status": measurement.status,
        "error": measurement.error,
        "latency_ms": stats.median_ms if stats is not None else None,
        "stats": stats.model_dump() if stats is not None else None,
        "stop_reason": measurement.stop_reason,
        "compile_ms": measurement.compile_ms,
        "cold_ms": measurement.cold_ms,
        "protocol_version": measurement.protocol_version,
        "environment": measurement.environment,
        "created_at": measurement.created_at.isoformat(),
    }


def measure_layers(
    path: Path,
    count: int,
    platform: str = PLATFORM,
    *,
    seed: int = 0,
    spec: MeasureSpec = LAYER_SPEC,
    backends: Registry[BackendFactory] | None = None,
    batch: int = 25,
    on_record: OnRecord | None = None,
) -> int:
    """Measure layers ``0..count-1`` of the layers dataset that ``path`` lacks.

    Args:
        path: the ``.jsonl.gz`` file (created, or resumed).
        count: the dataset's size; items already in the file are skipped.
        platform: where to time.
        seed: the campaign's seed.
        spec: the measurement protocol.
        backends: the backend registry (tests pass a fake one).
        batch: records per gzip member (what a crash can lose).
        on_record: called with each new record.

    Returns:
        How many layers were measured now.

    Example:
        >>> import tempfile
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> reg = backend_registry({"fake": FakeBackend})
        >>> p = Path(tempfile.mkdtemp()) / "l.jsonl.gz"
        >>> fast = MeasureSpec(min_runs=3, max_time_s=0.05)
        >>> run = lambda n: measure_layers(p, n, "fake-fake1.0-fp32-t1", spec=fast, backends=reg)
        >>> run(2), run(3), [r["index"] for r in read_records(p)]
        (2, 1, [0, 1, 2])
    """
    done = {r["index"] for r in read_records(path) if r.get("seed") == seed}
    pending: list[dict[str, Any]] = []
    measured = 0
    for index in range(count):
        if index in done:
            continue
        config = LAYERS.sample(random.Random(f"{seed}:{index}"))
        result = measure(LAYERS.model(config), platform, spec, backends=backends)
        record = {
            "index": index,
            "seed": seed,
            "type": config["type"],
            "config": config,
            "snippet": layer_snippet(config),
            **result_fields(result),
        }
        pending.append(record)
        measured += 1
        if on_record is not None:
            on_record(record)
        if len(pending) >= batch:
            append_records(path, pending)
            pending = []
    append_records(path, pending)
    return measured


def measure_networks(
    path: Path,
    count: int,
    platform: str = PLATFORM,
    *,
    seed: int = 0,
    spec: MeasureSpec = NETWORK_SPEC,
    backends: Registry[BackendFactory] | None = None,
    on_record: OnRecord | None = None,
    max_draws: int | None = None,
) -> int:
    """Measure distinct random networks until ``path`` holds ``count`` of them.

    Candidates are drawn in order; one whose graph hash is already in the file (an
    isomorphic network) is skipped. Each record carries the draw number, the
    configuration, the generated source file and the measurement.

    Args:
        path: the ``.jsonl.gz`` file (created, or resumed).
        count: distinct networks wanted in the file.
        platform, seed, spec, backends, on_record: as :func:`measure_layers`.
        max_draws: stop after this many draws in this call (None: no limit).

    Returns:
        How many networks were measured now.

    Example:
        >>> import tempfile
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> reg = backend_registry({"fake": FakeBackend})
        >>> p = Path(tempfile.mkdtemp()) / "n.jsonl.gz"
        >>> fast = MeasureSpec(min_runs=3, max_time_s=0.05)
        >>> measure_networks(p, 1, "fake-fake1.0-fp32-t1", spec=fast, backends=reg)
        1
        >>> "class Net(nn.Module)" in read_records(p)[0]["source"]
        True
    """
    records = [r for r in read_records(path) if r.get("seed") == seed]
    seen = {r["graph_hash"] for r in records}
    draw = max((r["draw"] for r in records), default=-1) + 1
    measured = draws = 0
    while len(seen) < count and (max_draws is None or draws < max_draws):
        config = NETWORKS.sample(random.Random(f"{seed}:{draw}"))
        draw, draws = draw + 1, draws + 1
        model = NETWORKS.model(config)
        digest = graph_key(model.to_graph()).digest
        if digest in seen:
            continue
        seen.add(digest)
        result = measure(model, platform, spec, backends=backends)
        record = {
            "draw": draw - 1,
            "seed": seed,
            "config": config,
            "source": network_source(config),
            **result_fields(result),
            "graph_hash": digest,
        }
        append_records(path, [record])
        measured += 1
        if on_record is not None:
            on_record(record)
    return measured


def snippet_key(text: str) -> str:
    """The key of a snippet in the per-layer file: a digest of its text.

    Example:
        >>> len(snippet_key("y=x0+x1")), snippet_key("y=x0") == snippet_key("y=x0")
        (16, True)
    """
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def measure_snippets(
    networks_path: Path,
    path: Path,
    platform: str = PLATFORM,
    *,
    seed: int = 0,
    spec: MeasureSpec = SNIPPET_SPEC,
    backends: Registry[BackendFactory] | None = None,
    batch: int = 25,
    on_record: OnRecord | None = None,
    max_networks: int | None = None,
) -> int:
    """Time alone every distinct snippet of the networks in ``networks_path`` not yet in ``path``.

    Networks are read in file order and interpreted (:func:`nnlat.zoo.cobra.networks.code_graph`);
    a snippet already timed (same text, in any network) is not timed again. Each record
    carries ``key`` (:func:`snippet_key`), ``kind``, ``snippet`` and the measurement.

    Args:
        networks_path: the networks file (:func:`measure_networks`).
        path: the per-layer ``.jsonl.gz`` file (created, or resumed).
        platform, seed, spec, backends, batch, on_record: as :func:`measure_layers`
            (``seed`` selects the networks of that campaign).
        max_networks: only the first this many networks (None: all).

    Returns:
        How many snippets were measured now.

    Example:
        >>> import tempfile
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> reg = backend_registry({"fake": FakeBackend})
        >>> folder, fast = Path(tempfile.mkdtemp()), MeasureSpec(min_runs=3, max_time_s=0.05)
        >>> fake = "fake-fake1.0-fp32-t1"
        >>> _ = measure_networks(folder / "n.gz", 1, fake, spec=fast, backends=reg)
        >>> run = lambda: measure_snippets(folder / "n.gz", folder / "s.gz", fake,
        ...                                spec=fast, backends=reg)
        >>> run() > 0, run()
        (True, 0)
    """
    done = {r["key"] for r in read_records(path)}
    networks = [r for r in read_records(networks_path) if r.get("seed") == seed]
    pending: list[dict[str, Any]] = []
    measured = 0
    for network in networks[:max_networks]:
        graph = code_graph(network["source"], network["config"]["resolution"])
        for snippet in graph.snippets:
            key = snippet_key(snippet.text)
            if key in done:
                continue
            done.add(key)
            model = SNIPPETS.model({"snippet": snippet.text})
            result = measure(model, platform, spec, backends=backends)
            record = {"key": key, "kind": snippet.kind, "snippet": snippet.text}
            pending.append({**record, **result_fields(result)})
            measured += 1
            if on_record is not None:
                on_record(pending[-1])
            if len(pending) >= batch:
                append_records(path, pending)
                pending = []
    append_records(path, pending)
    return measured
