"""The device pool of the MAPLE-style few-shot study: sixteen Ethos-U NPUs through Vela.

MAPLE (Abbasi et al., CVPRW 2022) trains a hardware-aware predictor on a pool of devices
and adapts to a new one from three measurements. Our pool is the devices we can run
ourselves: Vela platforms that differ in MACs per cycle (the accelerator: 32 … 2048), core
clock (100 MHz … 1.2 GHz), memory bandwidths and latencies (the system configuration) and
where the weights and the arena live (the memory mode). Eleven come from Vela's own
``vela.ini``; five from :data:`POOL_CONFIG`, the system configurations nnlat adds (read with
the defaults, as a user's ``vela.ini`` is). CPU runtimes of this host (onnxruntime,
OpenVINO, LiteRT; 1 and 2 threads) and a lent GPU are meant to join the pool once they can
be timed on quiet cores; they need no change here but new names.

Example:
    >>> len(VELA_POOL), len(set(VELA_POOL))
    (16, 16)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

VELA_VERSION_SUFFIX = "-vela5.2-int8"

# accelerator.system_config.memory_mode; each line says what it varies.
_VELA_POOL_HARDWARE = (
    "u55_32.ethos_u55_deep_embedded.shared_sram",  # 32 MAC/cycle, 200 MHz, weights in flash
    "u55_64.ethos_u55_high_end_embedded.shared_sram",  # 64 MAC/cycle, 500 MHz
    "u55_128.ethos_u55_high_end_embedded.sram_only",  # everything in SRAM
    "u55_256.ethos_u55_high_end_embedded.shared_sram",  # Vela's default target
    "u55_128.ethos_u55_deep_embedded.sram_only",  # 200 MHz, SRAM only
    "u65_256.ethos_u65_mid_end.dedicated_sram",  # DRAM arena, SRAM cache
    "u65_512.ethos_u65_high_end.dedicated_sram_256kb",  # 1 GHz, 256 KB arena cache
    "u65_512.ethos_u65_client_server.shared_sram",  # fast DRAM, weights off-chip
    "u85_128.ethos_u85_sys_flash_low.shared_sram",  # U85 at 200 MHz, flash
    "u85_256.ethos_u85_sys_flash_high.sram_only",  # U85 at 500 MHz, SRAM only
    "u85_1024.ethos_u85_sys_dram_mid.dedicated_sram",  # 1 GHz, DRAM
    "u55_64.nnlat_u55_low_power.shared_sram",  # 100 MHz, slow SRAM and flash (pool ini)
    "u55_256.nnlat_u55_fast_flash.shared_sram",  # 400 MHz, fast flash (pool ini)
    "u65_256.nnlat_u65_slow_dram.nnlat_dedicated_sram_128kb",  # 700 MHz, slow DRAM, 128 KB
    "u85_512.nnlat_u85_slow_sram.dedicated_sram",  # 800 MHz, half-rate high-latency SRAM
    "u85_2048.nnlat_u85_wide_dram.dedicated_sram_512kb",  # 1.2 GHz, wide DRAM
)
VELA_POOL = tuple(name + VELA_VERSION_SUFFIX for name in _VELA_POOL_HARDWARE)

# Devices kept out of the pool: "a configuration outside the pool" for onboarding checks.
VELA_HELD_OUT = tuple(
    name + VELA_VERSION_SUFFIX
    for name in (
        "u55_128.ethos_u55_high_end_embedded.shared_sram",
        "u85_512.ethos_u85_sys_dram_low.shared_sram",
        "u65_256.nnlat_u65_slow_dram.shared_sram",
    )
)


def pool_config() -> Path:
    """The pool's ``vela.ini`` (package data), to set as ``NNLAT_VELA_CONFIG``.

    Example:
        >>> pool_config().name
        'vela_pool.ini'
    """
    return Path(str(resources.files("nnlat.measure").joinpath("vela_pool.ini")))
