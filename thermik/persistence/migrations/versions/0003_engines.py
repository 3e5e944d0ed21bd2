"""Engine registry and stack leases.

Revision ID: 0003_engines
Revises: 0002_software
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0003_engines"
down_revision = "0002_software"
branch_labels = None
depends_on = None

# Types as they were when this revision was written (not imported from the models, which move on).
DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "engine_service",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("binary", sa.String(length=255), nullable=False),
        sa.Column("topic", sa.String(length=255), nullable=False),
        sa.Column("report_interval", sa.Integer(), nullable=False),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.Column("updated_at", DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_engine_service")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_table(
        "stack_lease",
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("engine_id", sa.String(length=36), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("acquired_at", DATETIME, nullable=False),
        sa.Column("expires_at", DATETIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_stack_lease_stack_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("stack_id", name=op.f("pk_stack_lease")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(op.f("ix_stack_lease_expires_at"), "stack_lease", ["expires_at"], unique=False)


def downgrade() -> None:
    op.drop_table("stack_lease")
    op.drop_table("engine_service")
