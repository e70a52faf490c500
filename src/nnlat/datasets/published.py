"""Published latency tables (HELP, LatBench, ...): read them, import them into the store.

Other groups published latencies of whole search spaces measured on hardware we do not
have, as wide CSV files: an id column (``nb201_idx``), an architecture column
(``arch_str``), maybe more description columns (``arch_vector``, ``op_idx_list``), then
one column of milliseconds per device. :func:`read_latency_table` reads such a file into
a :class:`LatencyTable`; :func:`import_latency_table` puts it into a
:class:`~nnlat.store.Store`: every architecture becomes a zoo model (its graph built by
the zoo generator of its search space, deduplicated by graph hash), every device column
a platform, every value a measurement whose ``source`` names the file.

Platforms: the device column names the hardware; a power-of-two suffix is the batch
size (``1080ti_32`` → batch 32; CPU model numbers such as ``silver_4114`` are not powers
of two, so they stay part of the name). A file with a single ``latency_ms`` column names
its device in the file name (``latbench_desktop_cpu_i7_7820x_fp32_ms.csv``). The
runtime slot of an imported platform names the dataset, e.g. ``1080ti-help1.0-fp32``:
the runtime those groups used is not recorded, and the name keeps imported numbers apart
from anything nnlat measures itself.

Importing is idempotent: architectures whose graph the store already knows are not
built again, and a value already stored is not added twice. Building graphs is the slow
part (~0.2 s per NAS-Bench-201 network), so it runs in forked worker processes, and the
raw graph features of each imported (architecture, batch size) are written to the
training feature cache on the way, so that training on the imported data afterwards does
not rebuild every graph.
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.datasets.training import IMPORTED_PREFIX, cache_path, cache_raw
from nnlat.errors import NnlatError
from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.load import load
from nnlat.measure.types import LatencyStats, Measurement
from nnlat.platform import DTYPES, Platform
from nnlat.store import Store
from nnlat.zoo import fbnet, nasbench201
from nnlat.zoo.family import Config, ZooModel
from nnlat.zoo.registry import get_family

# Search space name (as users type it) → zoo family and the parser of its arch strings.
SPACES: dict[str, tuple[str, Callable[[str], Config]]] = {
    "nas-bench-201": ("nasbench201", nasbench201.arch_config),
    "fbnet": ("fbnet", fbnet.arch_config),
}

# Columns that describe the architecture rather than time it.
DESCRIPTION_COLUMNS = frozenset({"arch_str", "arch_vector", "op_idx_list"})
ARCH_COLUMN = "arch_str"
SINGLE_DEVICE_COLUMN = "latency_ms"
# The runtime version of an imported platform: the dataset's release, not a runtime's.
IMPORTED_VERSION = "1.0"

# Architectures built per round of worker processes.
IMPORT_SLICE = 256

# Called as architectures are built: (architectures done, architectures in all).
OnArch = Callable[[int, int], None]


class PublishedDataError(NnlatError):
    """A latency table that cannot be read: wrong shape, unknown space, bad values."""


PUBLISHED_DIR = Path(__file__).resolve().parents[3] / "data" / "published"
"""The repository's folder of published tables (``data/published/``), one folder per space.

It ships with the repository, not inside the wheel: from an installed wheel it is absent,
and :func:`published_table` says so.
"""

PUBLISHED_TABLES = {
    "nas-bench-201": ("help_latency_ms.csv", "latbench_desktop_cpu_i7_7820x_fp32_ms.csv"),
    "fbnet": ("help_latency_ms.csv",),
}
"""Search space → the file names of its published tables under :data:`PUBLISHED_DIR`."""


def published_table(space: str, name: str = "help_latency_ms.csv") -> Path:
    """The path of one of the repository's published latency tables.

    Args:
        space: the search space's folder, ``nas-bench-201`` or ``fbnet``.
        name: the file, one of ``PUBLISHED_TABLES[space]``; HELP's table by default.

    Returns:
        ``data/published/<space>/<name>`` of the repository.

    Raises:
        PublishedDataError: no such table, or the repository's ``data/published/`` is not
            there (an installed wheel rather than a clone).

    Example:
        >>> published_table("nas-bench-201").name
        'help_latency_ms.csv'
        >>> published_table("fbnet").parent.name
        'fbnet'
    """
    known = PUBLISHED_TABLES.get(space)
    if known is None or name not in known:
        choices = ", ".join(f"{s}/{n}" for s, names in PUBLISHED_TABLES.items() for n in names)
        raise PublishedDataError(f"no published table {space}/{name}; known: {choices}")
    path = PUBLISHED_DIR / space / name
    if not path.is_file():
        raise PublishedDataError(
            f"{path} is missing: the published tables ship with the nnlat repository "
            "(data/published/); run from a clone, or pass the CSV's path"
        )
    return path


@dataclass(frozen=True)
class DeviceColumn:
    """One device column of a latency table.

    Attributes:
        column: the column's name in the file (``1080ti_32``).
        platform: the platform its values are stored under.
        batch_size: the batch size the values were measured at.
    """

    column: str
    platform: Platform
    batch_size: int


@dataclass
class LatencyTable:
    """A published latency table, in memory.

    Attributes:
        path: the file it was read from.
        space: the search space (``nas-bench-201`` or ``fbnet``).
        ids: the architectures' ids in their space (the file's id column).
        archs: the architecture strings.
        devices: the device columns, in file order.
        latencies_ms: ``(len(archs), len(devices))`` milliseconds; NaN where the file has
            no usable value (empty, not a number, zero or negative).
    """

    path: Path
    space: str
    ids: list[int]
    archs: list[str]
    devices: list[DeviceColumn]
    latencies_ms: np.ndarray

    @property
    def source(self) -> str:
        """What imported measurements carry as their ``source``: ``imported:<file name>``."""
        return IMPORTED_PREFIX + self.path.name

    def sample(self, count: int, seed: int = 0) -> LatencyTable:
        """``count`` architectures drawn at random, the same ids from any file of the space.

        An id's draw depends only on (seed, id), so two files of one space sampled alike
        share their architectures where both have them.

        Example:
            >>> t = LatencyTable(Path("x.csv"), "fbnet", [1, 2, 3], ["a", "b", "c"], [],
            ...                  np.zeros((3, 0)))
            >>> len(t.sample(2).ids), t.sample(2).ids == t.sample(2).ids
            (2, True)
        """
        rank = sorted(
            range(len(self.ids)),
            key=lambda i: hashlib.sha256(f"{seed}:{self.ids[i]}".encode()).digest(),
        )
        keep = sorted(rank[:count])
        return LatencyTable(
            self.path,
            self.space,
            [self.ids[i] for i in keep],
            [self.archs[i] for i in keep],
            self.devices,
            self.latencies_ms[keep],
        )

    def device(self, name: str) -> DeviceColumn:
        """The device column called ``name`` (column or platform name).

        Raises:
            PublishedDataError: no such device, with the ones the table has.
        """
        for device in self.devices:
            if name in (device.column, device.platform.name):
                return device
        known = ", ".join(d.column for d in self.devices)
        raise PublishedDataError(f"{self.path.name} has no device {name!r}; it has: {known}")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_.]+", "_", text.lower()).strip("_") or "device"


def _split_dtype(name: str) -> tuple[str, str]:
    """``desktop_cpu_fp32`` → (``desktop_cpu``, ``fp32``); fp32 when no dtype suffix."""
    for dtype in DTYPES:
        if name.endswith("_" + dtype):
            return name[: -len(dtype) - 1], dtype
    return name, "fp32"


def device_column(column: str, source: str) -> DeviceColumn:
    """The platform and batch size of a device column of dataset ``source``.

    Example:
        >>> d = device_column("1080ti_32", "help")
        >>> d.platform.name, d.batch_size
        ('1080ti-help1.0-fp32', 32)
        >>> device_column("silver_4114", "help").platform.name
        'silver_4114-help1.0-fp32'
    """
    name, dtype = _split_dtype(_slug(column))
    base, _, suffix = name.rpartition("_")
    batch = int(suffix) if base and suffix.isdigit() else 0
    if batch > 0 and batch & (batch - 1) == 0:  # a power of two: a batch size
        name = base
    else:
        batch = 1
    platform = Platform(
        hardware=name, runtime=source, runtime_version=IMPORTED_VERSION, dtype=dtype
    )
    return DeviceColumn(column=column, platform=platform, batch_size=batch)


def _parse_ms(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return value if math.isfinite(value) and value > 0 else math.nan


def read_latency_table(
    path: str | os.PathLike[str],
    space: str,
    *,
    source: str | None = None,
    device: str | None = None,
) -> LatencyTable:
    """Read a wide latency CSV (id, architecture, one column of ms per device).

    Args:
        path: the CSV file.
        space: ``nas-bench-201`` or ``fbnet``: how to read the architecture strings.
        source: the dataset's short name, the runtime slot of its platforms (default:
            the file name up to its first ``_``, e.g. ``help``).
        device: for a file with a single ``latency_ms`` column, the device's name
            (default: the rest of the file name, e.g. ``desktop_cpu_i7_7820x_fp32``).

    Raises:
        PublishedDataError: unknown space, no id or architecture column, no device
            column, a malformed architecture string (naming its row).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "demo_ms.csv"
        >>> _ = path.write_text("nb201_idx,arch_str,gpu_8\\n"
        ...     "7,|nor_conv_3x3~0|+|skip_connect~0|none~1|+|none~0|none~1|skip_connect~2|,2.5\\n")
        >>> table = read_latency_table(path, "nas-bench-201")
        >>> table.ids, [(d.platform.name, d.batch_size) for d in table.devices]
        ([7], [('gpu-demo1.0-fp32', 8)])
    """
    if space not in SPACES:
        raise PublishedDataError(f"unknown search space {space!r}; known: {', '.join(SPACES)}")
    path = Path(path)
    stem = _slug(path.stem.removesuffix("_ms"))
    default_source, _, default_device = stem.partition("_")
    source = re.sub(r"[^a-z]", "", (source or default_source).lower())
    if not source:
        raise PublishedDataError(f"cannot name the dataset of {path.name}: pass a source name")
    try:
        with path.open(newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as exc:
        raise PublishedDataError(f"cannot read {path}: {exc}") from exc
    if len(rows) < 2:
        raise PublishedDataError(f"{path.name} has no rows under its header")
    header = [name.strip() for name in rows[0]]
    id_columns = [i for i, name in enumerate(header) if name.endswith("_idx")]
    if not id_columns or ARCH_COLUMN not in header:
        raise PublishedDataError(
            f"{path.name} needs an id column (…_idx) and an {ARCH_COLUMN!r} column; "
            f"its header is {', '.join(header)}"
        )
    id_col, arch_col = id_columns[0], header.index(ARCH_COLUMN)
    value_cols = [
        i for i, name in enumerate(header) if i != id_col and name not in DESCRIPTION_COLUMNS
    ]
    if not value_cols:
        raise PublishedDataError(f"{path.name} has no device column")
    names = [header[i] for i in value_cols]
    if names == [SINGLE_DEVICE_COLUMN]:
        names = [device or default_device or "device"]
    devices = [device_column(name, source) for name in names]
    _, arch_config = SPACES[space]
    ids, archs, values = [], [], []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise PublishedDataError(
                f"{path.name} line {line}: {len(row)} fields, the header has {len(header)}"
            )
        try:
            arch_config(row[arch_col])
            ids.append(int(row[id_col]))
        except ValueError as exc:
            raise PublishedDataError(f"{path.name} line {line}: {exc}") from exc
        archs.append(row[arch_col])
        values.append([_parse_ms(row[i]) for i in value_cols])
    latencies = np.asarray(values, dtype=np.float64).reshape(len(archs), len(devices))
    return LatencyTable(path, space, ids, archs, devices, latencies)


@dataclass
class PublishedImportReport:
    """What :func:`import_latency_table` read and added.

    Attributes:
        archs: architectures in the file.
        built: architectures whose graph was built now (the rest were known).
        models_added: new models in the store (fewer than ``archs`` when several
            architectures share a graph).
        platforms: the platforms the device columns map to, each once.
        values: usable values in the file.
        measurements_added: values stored now (zero on a second import).
        missing: cells without a usable value (empty, not a number, ≤ 0), not imported.
    """

    archs: int = 0
    built: int = 0
    models_added: int = 0
    platforms: list[str] = field(default_factory=list)
    values: int = 0
    measurements_added: int = 0
    missing: int = 0


@dataclass(frozen=True)
class _Built:
    zoo_spec: dict[str, Any]
    config_json: str
    graph_hash: str
    graph: Graph


def _input_shapes(model: ZooModel, batch_size: int) -> dict[str, tuple[int, ...]]:
    """The measured input shapes: zoo models export one input, named ``input``."""
    return {"input": (batch_size, *model.input_shape[1:])}


def _builder(
    family: str, batch_sizes: Sequence[int], cache_dir: Path | None
) -> Callable[[Config], _Built]:
    """A function building one architecture's graph (run in worker processes)."""
    spec = get_family(family)

    def build(config: Config) -> _Built:
        model = spec.model(config)
        graph = model.to_graph()
        digest = graph_key(graph).digest
        if cache_dir is not None:
            for batch in batch_sizes:
                shapes = _input_shapes(model, batch)
                if not cache_path(cache_dir, digest, shapes).exists():
                    at_batch = graph if batch == 1 else load(graph.onnx_bytes, batch_size=batch)
                    cache_raw(cache_dir, digest, shapes, at_batch)
        return _Built(model.spec, model.config_json, digest, graph)

    return build


def _imported(
    table: LatencyTable,
    digest: str,
    device: DeviceColumn,
    value: float,
    shapes: dict[str, tuple[int, ...]],
) -> Measurement:
    stats = LatencyStats(
        n=1, mean_ms=value, median_ms=value, p90_ms=value, p99_ms=value, std_ms=0.0, cv=0.0,
        min_ms=value, max_ms=value, median_ci95_ms=0.0, stable=True,
    )  # fmt: skip
    return Measurement(
        graph_hash=digest,
        platform=device.platform.name,
        batch_size=device.batch_size,
        input_shapes=shapes,
        status="ok",
        stats=stats,
        source=table.source,
        environment={"source_file": table.path.name, "column": device.column},
        created_at=datetime.now(UTC),
    )


def import_latency_table(
    store: Store,
    table: LatencyTable,
    *,
    workers: int | None = None,
    cache_dir: Path | None = None,
    on_arch: OnArch | None = None,
) -> PublishedImportReport:
    """Import ``table`` into ``store``: models, platforms and one measurement per value.

    Args:
        store: the database.
        table: from :func:`read_latency_table`.
        workers: processes building graphs (default: one per usable core).
        cache_dir: the training feature cache to fill (see
            :func:`nnlat.datasets.training.default_cache_dir`); None: fill none.
        on_arch: progress callback, once per architecture.

    Returns:
        What was read and added; importing the same table again adds nothing.

    Raises:
        StoreError: the database refused a write (what was committed stays: rerun to
            finish).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "demo_ms.csv"
        >>> _ = path.write_text("nb201_idx,arch_str,gpu_8\\n"
        ...     "7,|nor_conv_3x3~0|+|skip_connect~0|none~1|+|none~0|none~1|skip_connect~2|,2.5\\n")
        >>> store = Store.open("sqlite://")
        >>> table = read_latency_table(path, "nas-bench-201")
        >>> import_latency_table(store, table).measurements_added
        1
        >>> import_latency_table(store, table).measurements_added
        0
    """
    from nnlat.forked import iter_forked

    family, arch_config = SPACES[table.space]
    spec = get_family(family)
    report = PublishedImportReport(archs=len(table.archs))
    for device in table.devices:
        store.upsert_platform(device.platform)
    report.platforms = list(dict.fromkeys(d.platform.name for d in table.devices))
    models = [spec.model(arch_config(arch)) for arch in table.archs]
    known = store.zoo_hashes(family)
    known_before = set(known.values())
    # Each configuration once: a file listing an architecture twice builds it once.
    todo = list({m.config_json: m.config for m in models if m.config_json not in known}.values())
    batches = sorted({d.batch_size for d in table.devices})
    done = len(models) - len(todo)
    if on_arch is not None:
        on_arch(done, len(models))
    build = _builder(family, batches, cache_dir)
    # Slices keep the forked chunks small: progress shows often, and an interrupted
    # import loses at most one slice of built graphs.
    for start in range(0, len(todo), IMPORT_SLICE):
        for built in iter_forked(build, todo[start : start + IMPORT_SLICE], workers):
            store.upsert_model(built.graph, zoo_spec=built.zoo_spec)
            known[built.config_json] = built.graph_hash
            report.built += 1
            done += 1
            if on_arch is not None:
                on_arch(done, len(models))
    report.models_added = len(set(known.values()) - known_before)
    measurements = []
    for row, model in enumerate(models):
        digest = known[model.config_json]
        for column, device in enumerate(table.devices):
            value = float(table.latencies_ms[row, column])
            if math.isnan(value):
                report.missing += 1
                continue
            report.values += 1
            shapes = _input_shapes(model, device.batch_size)
            measurements.append(_imported(table, digest, device, value, shapes))
    report.measurements_added = store.add_measurements(measurements)
    return report
