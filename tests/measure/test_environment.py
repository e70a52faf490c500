"""Hardware detection and fingerprint, software versions."""

from __future__ import annotations

import re

import pytest

from nnlat.measure.environment import (
    ISA_FLAGS,
    detect_hardware,
    hardware_slug,
    software_versions,
)


def test_detect_hardware_fields() -> None:
    info = detect_hardware()
    assert info.cpu_model
    assert re.fullmatch(r"[a-z0-9_.]+", info.hardware)
    assert 1 <= info.physical_cores <= info.logical_cores
    assert 1 <= info.usable_cpus <= info.logical_cores
    assert set(info.isa_flags) <= set(ISA_FLAGS)
    assert list(info.isa_flags) == sorted(info.isa_flags)
    assert all(size > 0 for size in info.cache_bytes.values())
    assert re.fullmatch(r"[0-9a-f]{12}", info.fingerprint)
    assert (info.gpu_name is None) == (info.gpu_hardware is None)


def test_fingerprint_is_stable() -> None:
    first = detect_hardware()
    detect_hardware.cache_clear()
    try:
        again = detect_hardware()
    finally:
        detect_hardware.cache_clear()
    assert again.fingerprint == first.fingerprint
    assert again == first


@pytest.mark.parametrize(
    ("model", "gpu", "slug"),
    [
        ("AMD EPYC 7B13 64-Core Processor", False, "epyc7b13"),
        ("AMD EPYC", False, "epyc"),
        ("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", False, "xeon8375c"),
        ("Intel(R) Core(TM) i7-9700K CPU @ 3.60GHz", False, "corei79700k"),
        ("AMD Ryzen 9 5950X 16-Core Processor", False, "ryzen95950x"),
        ("Neoverse-N1", False, "neoversen1"),
        ("NVIDIA H100 80GB HBM3", True, "h100"),
        ("NVIDIA A100-SXM4-40GB", True, "a100"),
        ("NVIDIA GeForce RTX 4090", True, "rtx4090"),
    ],
)
def test_hardware_slug(model: str, gpu: bool, slug: str) -> None:
    assert hardware_slug(model, gpu=gpu) == slug


def test_software_versions() -> None:
    versions = software_versions()
    for package in ("python", "numpy", "onnx", "nnlat"):
        assert versions[package]
