"""Arm Ethos-U NPUs through Vela: a deterministic estimate, not a timing.

Vela (``ethos-u-vela``) compiles an int8 TFLite model for an Ethos-U NPU and estimates
its performance; PerfSAGE built its NPU dataset the same way. A "measurement" here is
that estimate, read from the files Vela writes — the summary CSV (inference time, cycles,
memory used per area) and the per-layer CSV (``--verbose-performance``) — so nnlat's
numbers are Vela's own, exactly. It is one deterministic value: the runner records it as
one sample marked ``deterministic``, never as a distribution.

Platforms: one per accelerator configuration (Ethos-U55-32 … U85-2048) × system
configuration × memory mode of Vela's default ``vela.ini`` and of a user's
(``VelaBackend(config=...)``, else the ``NNLAT_VELA_CONFIG`` environment variable).
System configurations named for one NPU family (``Ethos_U55_…``) pair with that family
only; each combination is checked with Vela's own configuration reader. Names read
``<accelerator>.<system config>.<memory mode>-vela<X.Y>-int8``, e.g.
``u55_128.ethos_u55_high_end_embedded.shared_sram-vela5.2-int8``; a user's section of
the same name as a default one replaces it. The configuration files' digest is recorded
with each estimate (it is not part of the cache key: a changed section needs a new name).

Models the NPU cannot take whole (float models, unsupported operators) are not given a
number: the result is ``unsupported`` and names the operators Vela places on the CPU
(the NPU part of the estimate is kept in ``Measurement.npu``). A model Vela rejects
raises :class:`VelaRejectedError`.
"""

from __future__ import annotations

import configparser
import contextlib
import csv
import functools
import hashlib
import importlib.metadata
import io
import itertools
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.errors import NnlatError
from nnlat.graph.ir import Graph
from nnlat.measure.backends.base import Availability, BackendUnavailableError, RunResult, graph_for
from nnlat.measure.types import MeasureSpec, NpuEstimate, NpuLayer
from nnlat.platform import Platform, UnknownPlatformError

CONFIG_ENV = "NNLAT_VELA_CONFIG"
DEFAULT_ACCELERATOR = "ethos-u55-256"  # Vela's own defaults
DEFAULT_SYSTEM_CONFIG = "Ethos_U55_High_End_Embedded"
DEFAULT_MEMORY_MODE = "Shared_Sram"
_FAMILY = re.compile(r"u(55|65|85)", re.IGNORECASE)


class VelaConfigError(NnlatError):
    """A Vela configuration file is missing or malformed."""


class VelaRejectedError(NnlatError):
    """Vela refused to compile the model; the message carries Vela's reason."""


@dataclass(frozen=True)
class VelaTarget:
    """What a Vela platform compiles for: accelerator, system config, memory mode, files."""

    accelerator: str
    system_config: str
    memory_mode: str
    config_files: tuple[str, ...]
    config_sha256: str


def default_config() -> Path:
    """The ``vela.ini`` shipped with Vela."""
    from ethosu.vela import architecture_features

    return Path(architecture_features.CONFIG_FILES_PATH) / "Arm" / "vela.ini"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")


def _sections(path: Path) -> tuple[list[str], list[str]]:
    """(system configs, memory modes) a configuration file defines.

    Raises:
        VelaConfigError: missing, unreadable or not an .ini with Vela's sections.
    """
    if not path.is_file():
        raise VelaConfigError(f"Vela configuration {path}: no such file")
    if path.suffix != ".ini":
        raise VelaConfigError(f"Vela configuration {path}: Vela reads only .ini files")
    parser = configparser.ConfigParser()
    try:
        parser.read(path)
    except (configparser.Error, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0]
        raise VelaConfigError(f"Vela configuration {path} is malformed: {first}") from None
    systems = [s.split(".", 1)[1] for s in parser.sections() if s.startswith("System_Config.")]
    modes = [s.split(".", 1)[1] for s in parser.sections() if s.startswith("Memory_Mode.")]
    if not systems and not modes:
        raise VelaConfigError(
            f"Vela configuration {path} defines no [System_Config.*] or [Memory_Mode.*] section"
        )
    return systems, modes


def architecture(target: VelaTarget) -> Any:
    """Vela's own reading of the target (``ArchitectureFeatures``), its prints silenced.

    Raises:
        ethosu.vela.errors.VelaError: Vela refuses the combination.
    """
    from ethosu.vela.architecture_features import ArchitectureFeatures

    with contextlib.redirect_stdout(io.StringIO()):
        # positional: configuration files, accelerator, system configuration, memory mode,
        # max blockdep (3, Vela's default), verbose config (off), arena cache size (default)
        return ArchitectureFeatures(
            list(target.config_files),
            target.accelerator,
            target.system_config,
            target.memory_mode,
            3,
            False,
            None,
        )


def _valid(target: VelaTarget) -> bool:
    """Whether Vela's own configuration reader accepts the combination."""
    from ethosu.vela.errors import VelaError

    try:
        architecture(target)
    except VelaError:
        return False
    return True


@functools.lru_cache(maxsize=8)
def _targets(user_config: str | None, stamp: float) -> dict[str, tuple[Platform, VelaTarget]]:
    """Every valid platform of the default and the user's configuration, by name.

    ``stamp`` (the user file's modification time) keys the cache so edits are seen.
    """
    from ethosu.vela.architecture_features import Accelerator

    version = importlib.metadata.version("ethos-u-vela")
    files = [default_config()]
    if user_config is not None:
        files.append(Path(user_config).resolve())
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()
    sections = [_sections(path) for path in files]  # every file checked before Vela reads it
    found: dict[str, tuple[Platform, VelaTarget]] = {}
    for index, (systems, modes) in enumerate(sections):
        if index > 0:  # the user's file may use the default memory modes, and vice versa
            default_systems, default_modes = sections[0]
            modes = modes + [m for m in default_modes if m not in modes]
            systems = systems or default_systems
        for accelerator, system, mode in itertools.product(
            Accelerator.member_list(), systems, modes
        ):
            family = _FAMILY.search(system)
            if family and f"u{family.group(1)}" not in accelerator:
                continue
            target = VelaTarget(accelerator, system, mode, tuple(map(str, files)), digest)
            if not _valid(target):
                continue
            hardware = f"{_slug(accelerator.removeprefix('ethos-'))}.{_slug(system)}.{_slug(mode)}"
            platform = Platform(
                hardware=hardware,
                runtime="vela",
                runtime_version=version,
                dtype="int8",
                threads=None,
                device="npu",
            )
            found[platform.name] = (platform, target)
    return found


class VelaPrepared:
    """Vela's estimate of one model on one platform; ``run`` returns it, executing nothing."""

    def __init__(self, estimate: NpuEstimate) -> None:
        self.estimate = estimate

    def run(self, inputs: Mapping[str, np.ndarray]) -> RunResult:
        """The estimated latency; no outputs (nothing executes)."""
        return RunResult(self.estimate.inference_time_s * 1e3, ())

    def threads_in_use(self) -> int | None:
        """None: an NPU estimate has no CPU threads."""
        return None

    def close(self) -> None:
        """Nothing to release."""


class VelaBackend:
    """Ethos-U NPUs through Vela's performance estimator (deterministic).

    Args:
        config: a user's ``vela.ini`` adding system configurations and memory modes;
            None reads the ``NNLAT_VELA_CONFIG`` environment variable, if set.
        accelerators, system_configs, memory_modes: offer only these (all by default).

    Example:
        >>> VelaBackend().platform(None, "int8").name.startswith("u55_256.")
        True
    """

    name = "vela"
    dtypes = ("int8",)
    runs_zoo_modules = False
    deterministic = True
    source_format = "tflite"

    def __init__(
        self,
        config: str | Path | None = None,
        accelerators: tuple[str, ...] | None = None,
        system_configs: tuple[str, ...] | None = None,
        memory_modes: tuple[str, ...] | None = None,
    ) -> None:
        self.config = config
        self.accelerators = accelerators
        self.system_configs = system_configs
        self.memory_modes = memory_modes

    def available(self) -> Availability:
        """Vela is importable."""
        try:
            import ethosu.vela  # noqa: F401
        except ImportError as exc:
            return Availability(False, f"Vela is not installed ({exc}): pip install nnlat[edge]")
        return Availability(True)

    def _all(self) -> dict[str, tuple[Platform, VelaTarget]]:
        config = self.config if self.config is not None else os.environ.get(CONFIG_ENV) or None
        stamp = 0.0
        if config is not None:
            path = Path(config)
            if not path.is_file():
                source = f"{CONFIG_ENV}={config}" if self.config is None else str(config)
                raise VelaConfigError(f"Vela configuration {source}: no such file")
            stamp = path.stat().st_mtime
        found = _targets(None if config is None else str(config), stamp)
        return {
            name: entry
            for name, entry in found.items()
            if (self.accelerators is None or entry[1].accelerator in self.accelerators)
            and (self.system_configs is None or entry[1].system_config in self.system_configs)
            and (self.memory_modes is None or entry[1].memory_mode in self.memory_modes)
        }

    def platforms(self) -> list[Platform]:
        """Every accelerator × system configuration × memory mode offered.

        Raises:
            VelaConfigError: the user's configuration file is missing or malformed.
        """
        if not self.available():
            return []
        return [platform for platform, _ in self._all().values()]

    def platform(self, threads: int | None, dtype: str) -> Platform:
        """Vela's default target (Ethos-U55-256, high-end embedded, shared SRAM).

        Raises:
            UnknownPlatformError: a thread count or a dtype other than int8.
        """
        if threads is not None or dtype not in self.dtypes:
            raise UnknownPlatformError("Vela platforms are int8 and have no thread count")
        offered = self._all()
        for platform, target in offered.values():
            if (target.accelerator, target.system_config, target.memory_mode) == (
                DEFAULT_ACCELERATOR,
                DEFAULT_SYSTEM_CONFIG,
                DEFAULT_MEMORY_MODE,
            ):
                return platform
        if not offered:
            raise UnknownPlatformError("no Vela platform is offered")
        return next(iter(offered.values()))[0]

    def platform_by_name(self, name: str) -> Platform:
        """The platform called ``name``.

        Raises:
            UnknownPlatformError: no such Vela platform.
        """
        entry = self._all().get(name)
        if entry is None:
            raise UnknownPlatformError(f"{name!r} is not one of the Vela platforms offered")
        return entry[0]

    def target(self, name: str) -> VelaTarget:
        """What the platform called ``name`` compiles for.

        Raises:
            UnknownPlatformError: no such Vela platform.
        """
        entry = self._all().get(name)
        if entry is None:
            raise UnknownPlatformError(f"{name!r} is not one of the Vela platforms offered")
        return entry[1]

    def details(self, platform: Platform) -> dict[str, object]:
        """Accelerator, system configuration, memory mode and configuration files of a platform.

        Raises:
            UnknownPlatformError: no such Vela platform.
        """
        target = self.target(platform.name)
        return {
            "accelerator": target.accelerator,
            "system_config": target.system_config,
            "memory_mode": target.memory_mode,
            "config_files": list(target.config_files),
        }

    def prepare(self, model: Any, platform: Platform, spec: MeasureSpec) -> VelaPrepared:
        """Compile the model with Vela and read its estimate.

        Raises:
            BackendUnavailableError: the model is not a TFLite file.
            VelaRejectedError: Vela refused the model.
        """
        graph = graph_for(model, spec)
        source = _tflite_source(graph)
        entry = self._all().get(platform.name)
        if entry is None:
            raise BackendUnavailableError(f"{platform.name} is not a Vela platform offered here")
        return VelaPrepared(estimate(source, entry[1]))


def _tflite_source(graph: Graph) -> bytes:
    if graph.source_format != "tflite" or not graph.source_bytes:
        raise BackendUnavailableError(
            "Vela compiles .tflite models; this graph came from "
            f"{graph.source_format or 'ONNX'} (pass the .tflite file itself)"
        )
    return graph.source_bytes


def estimate(tflite: bytes, target: VelaTarget) -> NpuEstimate:
    """Run Vela on a TFLite model and read its summary and per-layer CSV files.

    Args:
        tflite: the model file's bytes.
        target: accelerator, system configuration, memory mode and configuration files.

    Returns:
        Vela's estimate, exactly as its CSV files state it (memory converted to bytes).

    Raises:
        VelaRejectedError: Vela refused the model.
    """
    from ethosu.vela.vela import main

    with tempfile.TemporaryDirectory(prefix="nnlat-vela-") as tmp:
        model = Path(tmp) / "model.tflite"
        model.write_bytes(tflite)
        argv = [str(model), "--accelerator-config", target.accelerator]
        argv += ["--config", _merged_config(target.config_files, Path(tmp))]
        argv += ["--system-config", target.system_config, "--memory-mode", target.memory_mode]
        argv += ["--output-dir", str(Path(tmp) / "out"), "--verbose-performance"]
        log = Path(tmp) / "vela.log"
        code = _run_isolated(main, argv, log)
        if code < 0:
            raise VelaRejectedError(f"Vela rejected the model: it crashed (signal {-code})")
        summary = Path(tmp) / "out" / f"model_summary_{target.system_config}.csv"
        layers = Path(tmp) / "out" / "model_per-layer.csv"
        if code != 0 or not summary.is_file():
            reason = _last_line(log.read_text(errors="replace")) or f"exit code {code}"
            raise VelaRejectedError(f"Vela rejected the model: {reason}")
        return parse_estimate(summary.read_text(), layers.read_text(), target)


def _run_isolated(main: Any, argv: list[str], log: Path) -> int:
    """Run Vela's ``main(argv)`` in a forked child; its exit code, or -signal if it died.

    Vela's C++ core can crash on a model it dislikes; a fork keeps that from taking the
    caller down, and costs milliseconds (Vela is already imported). The child's stdout
    and stderr, Python's and the C++ core's, go to ``log``.
    """
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never return into the caller's code
        code = 3
        try:
            import faulthandler

            faulthandler.disable()  # a crash is reported by the exit status, not a dump
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            # Python's streams too: a caller (pytest, say) may have replaced them.
            sys.stdout = sys.stderr = open(fd, "w", buffering=1)  # noqa: SIM115
            result = main(argv)
            code = result if isinstance(result, int) else 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException as exc:  # report, then exit: the parent reads the log
            print(f"{type(exc).__name__}: {exc}", flush=True)
            code = 3
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _merged_config(files: tuple[str, ...], folder: Path) -> str:
    """One .ini holding every file's sections, later files winning.

    Vela's C++ core reads the files' raw text with its own parser, which neither merges
    two files' sections nor reads ``key = value`` with spaces, and whose keys are
    case-sensitive; so a user's file is merged
    into the default one and written as ``key=value``.
    """
    if len(files) == 1:
        return files[0]
    parser = configparser.ConfigParser()
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(files)
    merged = folder / "vela.ini"
    with merged.open("w") as file:
        parser.write(file, space_around_delimiters=False)
    return str(merged)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _int(text: str) -> int:
    try:
        return round(float(text))
    except ValueError:  # "NaN" where a share is undefined
        return 0


def parse_estimate(summary_csv: str, per_layer_csv: str, target: VelaTarget) -> NpuEstimate:
    """Build an :class:`NpuEstimate` from the text of Vela's two CSV files."""
    row = next(csv.DictReader(io.StringIO(summary_csv)))
    layers = tuple(
        NpuLayer(
            original_operator=r["Original Operator"],
            operator=r["NNG Operator"],
            target=r["Target"],
            name=r["Name"],
            staging_usage_bytes=_int(r["Staging Usage"]),
            cycles=_int(r["Op Cycles"]),
            npu_cycles=_int(r["NPU"]),
            sram_access_cycles=_int(r["SRAM AC"]),
            dram_access_cycles=_int(r["DRAM AC"]),
            on_chip_flash_access_cycles=_int(r["OnFlash AC"]),
            off_chip_flash_access_cycles=_int(r["OffFlash AC"]),
            macs=_int(r["MAC Count"]),
        )
        for r in csv.DictReader(io.StringIO(per_layer_csv))
    )

    def kib(key: str) -> int:
        return round(float(row.get(key, 0) or 0) * 1024)

    cpu = tuple(
        f"{layer.original_operator} ({layer.name})" for layer in layers if layer.target == "CPU"
    )
    return NpuEstimate(
        accelerator=target.accelerator,
        system_config=target.system_config,
        memory_mode=target.memory_mode,
        config_sha256=target.config_sha256,
        core_clock_hz=float(row["core_clock"]),
        inference_time_s=float(row["inference_time"]),
        cycles_total=_int(row["cycles_total"]),
        cycles_npu=_int(row["cycles_npu"]),
        cycles_sram_access=_int(row["cycles_sram_access"]),
        cycles_dram_access=_int(row["cycles_dram_access"]),
        cycles_on_chip_flash_access=_int(row["cycles_on_chip_flash_access"]),
        cycles_off_chip_flash_access=_int(row["cycles_off_chip_flash_access"]),
        sram_used_bytes=kib("sram_memory_used"),
        dram_used_bytes=kib("dram_memory_used"),
        on_chip_flash_used_bytes=kib("on_chip_flash_memory_used"),
        off_chip_flash_used_bytes=kib("off_chip_flash_memory_used"),
        npu_operators=sum(1 for layer in layers if layer.target == "NPU"),
        cpu_operators=cpu,
        layers=layers,
    )
