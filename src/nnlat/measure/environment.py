"""What machine and software a measurement ran on: hardware detection and fingerprint.

:func:`detect_hardware` reads the CPU model, core counts, cache sizes and the ISA flags
that decide which kernels a runtime picks (AVX2, AVX-512, VNNI, AMX, NEON/SVE) from
Linux's ``/proc`` and ``/sys`` (``lscpu`` as a fall-back), plus the name of the first
NVIDIA GPU, if any. The identifying fields are hashed into a short, stable
``fingerprint``: two hosts with the same fingerprint are expected to time alike, and
measurements from different fingerprints are never pooled.

:func:`software_versions` lists the versions of the packages that produce a number.
Nothing here imports a runtime: versions come from the installed package metadata.

:func:`energy_meter` finds the host's energy counter, if it has one: RAPL package
domains under ``/sys/class/powercap`` for CPU platforms, NVML's total-energy counter for
an NVIDIA GPU; otherwise it says why there is none.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import platform as pyplatform
import re
import shutil
import subprocess
from pathlib import Path

from pydantic import BaseModel, ConfigDict

# The ISA extensions that change which kernels a runtime dispatches to; everything else
# in /proc/cpuinfo's flags line is noise for latency (and varies with the hypervisor).
ISA_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
    "asimd",
    "asimddp",
    "asimdhp",
    "i8mm",
    "bf16",
    "sve",
    "sve2",
)

# Words of a CPU/GPU model string that say nothing about the part itself.
_CPU_NOISE = {
    "amd", "intel", "cpu", "processor", "platinum", "gold", "silver", "bronze",
    "with", "radeon", "graphics", "genuine", "authentic",
}  # fmt: skip
_GPU_NOISE = {"nvidia", "geforce", "tesla", "quadro", "pcie", "sxm", "nvl", "hbm", "hbm2", "hbm3"}
_SYS_CPU = Path("/sys/devices/system/cpu")


class HardwareInfo(BaseModel):
    """The local machine, as far as latency is concerned.

    Attributes:
        cpu_model: the CPU's marketing name, e.g. ``"AMD EPYC 7B13 64-Core Processor"``.
        hardware: a short slug of ``cpu_model`` used in platform names, e.g. ``"epyc7b13"``.
        physical_cores: distinct physical cores.
        logical_cores: logical CPUs of the machine (hyper-threads included).
        usable_cpus: logical CPUs this process may run on (its affinity mask).
        cache_bytes: per-instance cache size by level, ``{"L1d": ..., "L2": ..., "L3": ...}``.
        isa_flags: the present members of :data:`ISA_FLAGS`, sorted.
        gpu_name: the first NVIDIA GPU's name, or None.
        gpu_hardware: a slug of ``gpu_name`` (``"h100"``), or None.
        fingerprint: 12 hex characters hashing every field above except ``usable_cpus``.

    Example:
        >>> info = detect_hardware()
        >>> len(info.fingerprint)
        12
    """

    model_config = ConfigDict(frozen=True)

    cpu_model: str
    hardware: str
    physical_cores: int
    logical_cores: int
    usable_cpus: int
    cache_bytes: dict[str, int]
    isa_flags: tuple[str, ...]
    gpu_name: str | None = None
    gpu_hardware: str | None = None
    fingerprint: str


def hardware_slug(model_name: str, *, gpu: bool = False) -> str:
    """A short platform-name slug of a CPU or GPU model string.

    Vendor, tier and marketing words are dropped and the rest is joined: the family and
    model number. GPU memory sizes and form factors (``80gb``, ``sxm4``) are dropped too.

    Example:
        >>> hardware_slug("AMD EPYC 7B13 64-Core Processor")
        'epyc7b13'
        >>> hardware_slug("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz")
        'xeon8375c'
        >>> hardware_slug("NVIDIA H100 80GB HBM3", gpu=True)
        'h100'
    """
    text = re.sub(r"\((r|tm)\)", " ", model_name.lower())
    text = re.sub(r"@.*$", " ", text)  # the clock speed
    text = re.sub(r"\b\d+-core\b", " ", text)
    noise = _GPU_NOISE if gpu else _CPU_NOISE
    words = [w for w in re.findall(r"[a-z0-9]+", text) if w not in noise]
    if gpu:
        words = [w for w in words if not re.fullmatch(r"\d+gb|sxm\d*|pcie\d*|hbm\d*e?", w)][:2]
    slug = "".join(words[:3])[:24]
    return slug or re.sub(r"[^a-z0-9_.]", "", pyplatform.machine().lower()) or "unknown"


def _cpuinfo() -> dict[str, str]:
    """The first processor's ``key: value`` lines of /proc/cpuinfo (empty if absent)."""
    fields: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return fields
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break  # one processor is enough: they are identical on servers
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip().lower(), value.strip())
    return fields


def _lscpu() -> dict[str, str]:
    if shutil.which("lscpu") is None:
        return {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return {
        k.strip().lower(): v.strip()
        for k, _, v in (line.partition(":") for line in out.splitlines())
        if v
    }


def _size_bytes(text: str) -> int | None:
    """``"48K"``, ``"32 MiB"``, ``"1024 KB"`` → bytes."""
    match = re.match(r"\s*([\d.]+)\s*([KMG]?)I?B?", text.upper())
    if match is None:
        return None
    scale = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[match.group(2)]
    return int(float(match.group(1)) * scale)


def _caches(lscpu: dict[str, str]) -> dict[str, int]:
    caches: dict[str, int] = {}
    for index in sorted((_SYS_CPU / "cpu0" / "cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = _size_bytes((index / "size").read_text())
        except OSError:
            continue
        suffix = {"Data": "d", "Instruction": "i"}.get(kind, "")
        if size:
            caches[f"L{level}{suffix}"] = size
    if caches:
        return caches
    # lscpu reports totals, "2 MiB (2 instances)": divide back to one instance.
    for key, name in (("l1d", "L1d"), ("l1i", "L1i"), ("l2", "L2"), ("l3", "L3")):
        value = lscpu.get(f"{key} cache", "")
        size = _size_bytes(value)
        if size:
            instances = re.search(r"\((\d+) instances?\)", value)
            caches[name] = size // int(instances.group(1) if instances else 1)
    return caches


def _physical_cores(logical: int) -> int:
    cores = set()
    for cpu in _SYS_CPU.glob("cpu[0-9]*"):
        try:
            package = (cpu / "topology" / "physical_package_id").read_text().strip()
            core = (cpu / "topology" / "core_id").read_text().strip()
        except OSError:
            continue
        cores.add((package, core))
    return len(cores) or logical


def _gpu_name() -> str | None:
    # nvidia-smi first: torch.cuda would initialise CUDA in this process, which breaks
    # the forked workers of a measurement farm.
    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if out:
            return out.splitlines()[0].strip()
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    if torch.cuda.is_available():
        return str(torch.cuda.get_device_name(0))
    return None


@functools.cache
def detect_hardware() -> HardwareInfo:
    """Detect the local hardware (cached: it does not change while the process runs).

    Returns:
        The :class:`HardwareInfo` of this host.

    Example:
        >>> detect_hardware().logical_cores >= 1
        True
    """
    info = _cpuinfo()
    lscpu = _lscpu()
    cpu_model = (
        info.get("model name") or lscpu.get("model name") or pyplatform.processor() or "unknown"
    )
    flags = set((info.get("flags") or info.get("features") or lscpu.get("flags", "")).split())
    logical = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else logical
    gpu = _gpu_name()
    fields = {
        "cpu_model": cpu_model,
        "hardware": hardware_slug(cpu_model),
        "physical_cores": _physical_cores(logical),
        "logical_cores": logical,
        "cache_bytes": _caches(lscpu),
        "isa_flags": tuple(sorted(f for f in ISA_FLAGS if f in flags)),
        "gpu_name": gpu,
        "gpu_hardware": hardware_slug(gpu, gpu=True) if gpu else None,
    }
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]
    return HardwareInfo(**fields, usable_cpus=usable, fingerprint=digest)


SOFTWARE_PACKAGES = (
    "nnlat",
    "numpy",
    "onnx",
    "onnxruntime",
    "openvino",
    "torch",
    "onnx2torch",
    "ai-edge-litert",
    "ethos-u-vela",
)


def software_versions() -> dict[str, str]:
    """Versions of Python, the OS kernel and the installed packages that produce a number.

    Packages that are not installed are left out.

    Example:
        >>> "python" in software_versions()
        True
    """
    versions = {"python": pyplatform.python_version(), "os": pyplatform.platform()}
    for package in SOFTWARE_PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


POWERCAP = Path("/sys/class/powercap")
_RAPL_PACKAGE = re.compile(r"^intel-rapl:\d+$")  # packages; "intel-rapl:0:1" are their parts


class EnergyMeter:
    """A cumulative energy counter of this host: RAPL packages on CPUs, NVML on a GPU.

    ``read_j()`` returns joules since an arbitrary origin; the difference of two reads is
    the energy the whole package (or GPU) used meanwhile, whoever used it. Counter
    wrap-around (RAPL's ``max_energy_range_uj``) is undone between consecutive reads.

    Attributes:
        method: ``"rapl"`` or ``"nvml"``.
    """

    def __init__(self, method: str, sources: tuple[Path, ...] = (), handle: object = None) -> None:
        self.method = method
        self._sources = sources
        self._handle = handle
        self._last: list[int] = []
        self._wraps = [0] * len(sources)

    def read_j(self) -> float:
        """Joules consumed since an arbitrary origin."""
        if self.method == "nvml":
            import pynvml

            return pynvml.nvmlDeviceGetTotalEnergyConsumption(self._handle) / 1e3  # mJ
        values = [int((src / "energy_uj").read_text()) for src in self._sources]
        for k, (now, before) in enumerate(zip(values, self._last, strict=False)):
            if now < before:  # the counter wrapped
                self._wraps[k] += int((self._sources[k] / "max_energy_range_uj").read_text())
        self._last = values
        return sum(v + w for v, w in zip(values, self._wraps, strict=True)) / 1e6


def energy_meter(device: str, root: Path = POWERCAP) -> tuple[EnergyMeter | None, str]:
    """The energy counter for ``device`` ("cpu" / "cuda"), or None and why there is none.

    Args:
        device: the platform's device.
        root: the powercap folder (tests point it elsewhere).

    Example:
        >>> meter, why = energy_meter("npu")
        >>> meter is None and "no energy counter" in why
        True
    """
    if device == "cuda":
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)
        except Exception as exc:  # no pynvml, no driver, or a GPU without the counter
            return None, f"NVML energy counter unavailable ({type(exc).__name__}: {exc})"
        return EnergyMeter("nvml", handle=handle), ""
    if device != "cpu":
        return None, f"no energy counter for a {device} platform"
    if not root.is_dir():
        return None, f"no RAPL on this host ({root} does not exist)"
    packages = tuple(p for p in sorted(root.iterdir()) if _RAPL_PACKAGE.match(p.name))
    if not packages:
        return None, f"no RAPL package domain under {root}"
    try:
        for package in packages:
            int((package / "energy_uj").read_text())
    except (OSError, ValueError) as exc:
        return None, f"RAPL counters unreadable ({exc}); reading them may need root"
    return EnergyMeter("rapl", sources=packages), ""
