"""Per-node times on measurements: onnxruntime's profile of the measured model.

``node_profile`` (JSON: the runtime, its version, the profiled runs and each kernel's
name, operator, median time and the graph node it is credited to) and
``node_profile_note`` (why profiling failed). Existing rows have neither:
``nnlat dataset profile`` adds profiles to them without timing them again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the node profile columns to ``measurements``."""
    with op.batch_alter_table("measurements") as batch:
        batch.add_column(sa.Column("node_profile", sa.JSON))
        batch.add_column(sa.Column("node_profile_note", sa.Text))


def downgrade() -> None:
    """Drop them again."""
    with op.batch_alter_table("measurements") as batch:
        batch.drop_column("node_profile_note")
        batch.drop_column("node_profile")
