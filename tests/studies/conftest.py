"""What the MAPLE study tests share: the pool table cut to its first rows, and the study's
settings for a small run on it."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pytest

from nnlat.studies.maple import FAMILY, MapleConfig
from nnlat.studies.maple_spaces import space_of

MAPLE_DATA = Path(__file__).parents[2] / "data" / "maple"


@pytest.fixture(scope="session")
def pool_rows() -> Callable[..., Path]:
    """``pool_rows(folder, count, name="nb201_vela_pool.csv")``: ``data/maple/<name>``'s
    header and first ``count`` architectures, written to ``folder/pool.csv``."""

    def write(folder: Path, count: int, name: str = "nb201_vela_pool.csv") -> Path:
        table = folder / "pool.csv"
        with (MAPLE_DATA / name).open(newline="") as source:
            rows = list(csv.reader(source))[: count + 1]
        with table.open("w", newline="") as out:
            csv.writer(out).writerows(rows)
        return table

    return write


@pytest.fixture(scope="session")
def small_study() -> Callable[..., MapleConfig]:
    """``small_study(table, devices, methods, family=FAMILY, **settings)``: the study on
    ``table`` with the pool's descriptors of the space's primitives, 3 shots and one seed."""

    def make(
        table: Path,
        devices: tuple[str, ...],
        methods: tuple[str, ...],
        family: str = FAMILY,
        **settings: object,
    ) -> MapleConfig:
        return MapleConfig(
            db="",
            descriptors=str(MAPLE_DATA / space_of(family).descriptors.name),
            devices=devices,
            methods=methods,
            shots=(3,),
            seeds=1,
            table=str(table),
            family=family,
            **settings,  # type: ignore[arg-type]
        )

    return make
