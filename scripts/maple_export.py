"""Export the MAPLE pool campaign to data/maple/: the wide CSV and the campaign's numbers.

Usage: PYTHONPATH=src python scripts/maple_export.py [DB_URL] [OUT_DIR]

Writes OUT_DIR/nb201_vela_pool.csv (position, split, arch, one latency column in ms per pool
device; only architectures measured on every device) and prints the sizes and the wall
time between the first and the last stored result (for data/maple/README.md). The full
archive (recipes, every Vela counter, per-layer tables) is `nnlat db export`'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

import sqlalchemy as sa

from nnlat.measure.pool import VELA_POOL
from nnlat.store import Store
from nnlat.studies.maple import FAMILY, is_test, load_pool, write_table

db = sys.argv[1] if len(sys.argv) > 1 else "sqlite:////work/campaign/maple.db"
out = Path(sys.argv[2] if len(sys.argv) > 2 else "data/maple")
data = load_pool(db, VELA_POOL)
rows = write_table(data, out / "nb201_vela_pool.csv")
complete = data.complete()
tests = sum(is_test(int(p)) for p in complete)
with Store.open(db, migrate=False) as store, store.engine.connect() as connection:
    first, last, results = connection.execute(
        sa.text(
            "SELECT min(ms.stored_at), max(ms.stored_at), count(*) FROM measurements ms "
            "JOIN models m ON ms.model_id = m.id WHERE m.family = :family"
        ),
        {"family": FAMILY},
    ).one()
print(f"{rows} architectures on all {len(VELA_POOL)} devices ({rows - tests} train, {tests} test)")
print(f"{results} results stored, first {first}, last {last}")
