"""The original file of a model loaded from another format than ONNX (TFLite).

``models.source_format`` (``"tflite"``) and ``models.source`` (the file, weights
included) let a worker run exactly the uploaded file on LiteRT or Vela; the weight-free
ONNX in ``models.onnx`` stays the storage form every other component reads. Existing rows
are ONNX models: both columns are NULL for them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the source format and source bytes columns to ``models``."""
    blob = sa.LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")
    with op.batch_alter_table("models") as batch:
        batch.add_column(sa.Column("source_format", sa.String(16)))
        batch.add_column(sa.Column("source", blob))


def downgrade() -> None:
    """Drop them again."""
    with op.batch_alter_table("models") as batch:
        batch.drop_column("source")
        batch.drop_column("source_format")
