"""The builtin delivery's documents and signals in the database, shared by every process.

Revision ID: 0005_delivery_objects
Revises: 0004_lighter_action_writes
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0005_delivery_objects"
down_revision = "0004_lighter_action_writes"
branch_labels = None
depends_on = None

# Types as they were when this revision was written (not imported from the models, which move on).
DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
LONG_BLOB = sa.LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "delivery_object",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("body", LONG_BLOB, nullable=False),
        sa.Column("sealed", sa.Boolean(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("updated_at", DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_delivery_object")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )


def downgrade() -> None:
    op.drop_table("delivery_object")
