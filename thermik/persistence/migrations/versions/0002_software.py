"""Software configs and deployments, server metadata generations, snapshots.

Revision ID: 0002_software
Revises: 0001_core
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0002_software"
down_revision = "0001_core"
branch_labels = None
depends_on = None

# Types as they were when this revision was written (not imported from the models, which move on).
DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "server_metadata",
        sa.Column("server_id", sa.String(length=255), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("updated_at", DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("server_id", name=op.f("pk_server_metadata")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_table(
        "software_config",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("group", sa.String(length=255), nullable=False),
        sa.Column("config", LONG_TEXT, nullable=False),
        sa.Column("tenant", sa.String(length=64), nullable=False),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_software_config")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(op.f("ix_software_config_tenant"), "software_config", ["tenant"], unique=False)

    op.create_table(
        "software_deployment",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("config_id", sa.String(length=36), nullable=False),
        sa.Column("server_id", sa.String(length=255), nullable=False),
        sa.Column("input_values", LONG_TEXT, nullable=False),
        sa.Column("output_values", LONG_TEXT, nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=64), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("tenant", sa.String(length=64), nullable=False),
        sa.Column("stack_user_project_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.Column("updated_at", DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["config_id"], ["software_config.id"], name=op.f("fk_software_deployment_config_id")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_software_deployment")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(
        op.f("ix_software_deployment_created_at"),
        "software_deployment",
        ["created_at"],
        unique=False,
    )
    op.create_index(
        op.f("ix_software_deployment_server_id"),
        "software_deployment",
        ["server_id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_software_deployment_tenant"), "software_deployment", ["tenant"], unique=False
    )

    op.create_table(
        "snapshot",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=True),
        sa.Column("data", LONG_TEXT, nullable=True),
        sa.Column("tenant", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=64), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.Column("updated_at", DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_snapshot_stack_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_snapshot")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(op.f("ix_snapshot_stack_id"), "snapshot", ["stack_id"], unique=False)
    op.create_index(op.f("ix_snapshot_tenant"), "snapshot", ["tenant"], unique=False)


def downgrade() -> None:
    op.drop_table("snapshot")
    op.drop_table("software_deployment")
    op.drop_table("software_config")
    op.drop_table("server_metadata")
