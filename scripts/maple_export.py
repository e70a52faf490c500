"""Export the MAPLE pool campaign to data/maple/: the wide CSVs and the campaign's numbers.

Usage: PYTHONPATH=src python scripts/maple_export.py [DB_URL] [OUT_DIR] [FAMILY]

Writes OUT_DIR/<space>_vela_pool.csv (position, split, arch, one latency column in ms per
pool device; only architectures measured on every pool device) and
OUT_DIR/<space>_vela_held_out.csv (the same for the three held-out devices), ``<space>``
being ``nb201`` for the default family (nasbench201-int8) and ``kws`` for cnn-kws, and
prints the sizes and the wall time between the first and the last stored result (for
data/maple/README.md). Rows already in a CSV that
the database lacks are kept (an earlier campaign's database measured them; Vela is
deterministic, and rows both have agree to the CSV's 6 decimals), so a restarted campaign
never shrinks the export. The full archive (recipes, every Vela counter, per-layer tables)
is `nnlat db export`'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import sqlalchemy as sa

from nnlat.measure.pool import VELA_HELD_OUT, VELA_POOL
from nnlat.store import Store
from nnlat.studies.maple import FAMILY, PoolData, is_test, load_pool, load_table, write_table

PREFIX = {"nasbench201-int8": "nb201", "cnn-kws": "kws"}


def merged(db: str, devices: tuple[str, ...], path: Path, family: str) -> PoolData:
    """The database's rows over ``devices``, completed by the CSV at ``path`` if any."""
    data = load_pool(db, devices, family)
    if not path.is_file():
        return data
    old = load_table(path, family)
    size = max(len(data.archs), len(old.archs))
    archs = [""] * size
    latency = np.full((size, len(devices)), np.nan)
    for source in (old, data):  # the database last: it wins where both have a row
        for p in source.complete():
            if archs[p] and archs[p] != source.archs[p]:
                raise SystemExit(f"position {p}: {archs[p]} in one source, {source.archs[p]}")
            archs[p] = source.archs[p]
            latency[p] = source.latency_ms[p]
    return PoolData(tuple(archs), devices, latency, family)


db = sys.argv[1] if len(sys.argv) > 1 else "sqlite:////work/campaign/maple/maple.db"
out = Path(sys.argv[2] if len(sys.argv) > 2 else "data/maple")
family = sys.argv[3] if len(sys.argv) > 3 else FAMILY
for devices, name in (
    (VELA_POOL, f"{PREFIX[family]}_vela_pool.csv"),
    (VELA_HELD_OUT, f"{PREFIX[family]}_vela_held_out.csv"),
):
    data = merged(db, devices, out / name, family)
    rows = write_table(data, out / name)
    tests = sum(is_test(int(p)) for p in data.complete())
    print(
        f"{name}: {rows} architectures on all {len(devices)} devices "
        f"({rows - tests} train, {tests} test)"
    )
with Store.open(db, migrate=False) as store, store.engine.connect() as connection:
    first, last, results = connection.execute(
        sa.text(
            "SELECT min(ms.stored_at), max(ms.stored_at), count(*) FROM measurements ms "
            "JOIN models m ON ms.model_id = m.id WHERE m.family = :family"
        ),
        {"family": family},
    ).one()
print(f"{results} results stored, first {first}, last {last}")
