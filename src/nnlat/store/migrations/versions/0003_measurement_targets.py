"""Three targets and deterministic estimates on measurements: energy, NPU estimate.

Memory already has its column (``peak_memory_bytes``). Added: ``energy_j`` (joules per
inference) and ``energy_note`` (why there is none), ``deterministic`` (an estimator's
single exact value, e.g. Vela's) and ``npu`` (Vela's full estimate as JSON). Existing
rows are timings: ``deterministic`` is false for them.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the energy, deterministic and npu columns to ``measurements``."""
    with op.batch_alter_table("measurements") as batch:
        batch.add_column(sa.Column("energy_j", sa.Double))
        batch.add_column(sa.Column("energy_note", sa.Text))
        batch.add_column(
            sa.Column("deterministic", sa.Boolean, nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("npu", sa.JSON))


def downgrade() -> None:
    """Drop them again."""
    with op.batch_alter_table("measurements") as batch:
        batch.drop_column("npu")
        batch.drop_column("deterministic")
        batch.drop_column("energy_note")
        batch.drop_column("energy_j")
