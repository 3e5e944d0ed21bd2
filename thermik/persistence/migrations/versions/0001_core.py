"""Core tables: templates, stacks, resources, events and the join log.

Revision ID: 0001_core
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0001_core"
down_revision = None
branch_labels = None
depends_on = None

# Types as they were when this revision was written (not imported from the models, which move on).
DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "raw_template_files",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("files", LONG_TEXT, nullable=False),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_raw_template_files")),
        sa.UniqueConstraint("digest", name=op.f("uq_raw_template_files_digest")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_table(
        "resource_properties_data",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("data", LONG_TEXT, nullable=False),
        sa.Column("encrypted", sa.Boolean(), nullable=False),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource_properties_data")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_table(
        "user_creds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=255), nullable=True),
        sa.Column("password", sa.Text(), nullable=True),
        sa.Column("trust_id", sa.Text(), nullable=True),
        sa.Column("decrypt_method", sa.String(length=64), nullable=True),
        sa.Column("tenant", sa.String(length=255), nullable=True),
        sa.Column("tenant_id", sa.String(length=64), nullable=True),
        sa.Column("auth_url", sa.Text(), nullable=True),
        sa.Column("region_name", sa.String(length=255), nullable=True),
        sa.Column("trustor_user_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_creds")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_table(
        "raw_template",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("template", LONG_TEXT, nullable=False),
        sa.Column("environment", LONG_TEXT, nullable=False),
        sa.Column("files_id", sa.Integer(), nullable=True),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["files_id"], ["raw_template_files.id"], name=op.f("fk_raw_template_files_id")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_raw_template")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_table(
        "stack",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("tenant", sa.String(length=64), nullable=False),
        sa.Column("username", sa.String(length=255), nullable=True),
        sa.Column("raw_template_id", sa.Integer(), nullable=False),
        sa.Column("prev_raw_template_id", sa.Integer(), nullable=True),
        sa.Column("user_creds_id", sa.Integer(), nullable=True),
        sa.Column("owner_id", sa.String(length=36), nullable=True),
        sa.Column("root_id", sa.String(length=36), nullable=False),
        sa.Column("parent_resource_name", sa.String(length=255), nullable=True),
        sa.Column("nested_depth", sa.Integer(), nullable=False),
        sa.Column("stack_user_project_id", sa.String(length=64), nullable=True),
        sa.Column("timeout_mins", sa.Integer(), nullable=True),
        sa.Column("disable_rollback", sa.Boolean(), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=64), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("current_traversal", sa.String(length=36), nullable=False),
        sa.Column("current_deps", LONG_TEXT, nullable=True),
        sa.Column("traversal_started_at", DATETIME, nullable=True),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.Column("updated_at", DATETIME, nullable=True),
        sa.Column("deleted_at", DATETIME, nullable=True),
        sa.Column("deleted_key", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["stack.id"], name=op.f("fk_stack_owner_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["prev_raw_template_id"],
            ["raw_template.id"],
            name=op.f("fk_stack_prev_raw_template_id"),
        ),
        sa.ForeignKeyConstraint(
            ["raw_template_id"], ["raw_template.id"], name=op.f("fk_stack_raw_template_id")
        ),
        sa.ForeignKeyConstraint(
            ["user_creds_id"], ["user_creds.id"], name=op.f("fk_stack_user_creds_id")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stack")),
        sa.UniqueConstraint(
            "tenant", "name", "deleted_key", name=op.f("uq_stack_tenant_name_deleted_key")
        ),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(op.f("ix_stack_deleted_at"), "stack", ["deleted_at"], unique=False)
    op.create_index(op.f("ix_stack_owner_id"), "stack", ["owner_id"], unique=False)
    op.create_index(op.f("ix_stack_root_id"), "stack", ["root_id"], unique=False)

    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("resource_name", sa.String(length=255), nullable=False),
        sa.Column("physical_resource_id", sa.String(length=255), nullable=True),
        sa.Column("resource_action", sa.String(length=64), nullable=False),
        sa.Column("resource_status", sa.String(length=64), nullable=False),
        sa.Column("resource_status_reason", sa.Text(), nullable=False),
        sa.Column("resource_type", sa.String(length=255), nullable=False),
        sa.Column("resource_properties", LONG_TEXT, nullable=True),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_event_stack_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event")),
        sa.UniqueConstraint("uuid", name=op.f("uq_event_uuid")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(op.f("ix_event_stack_id_id"), "event", ["stack_id", "id"], unique=False)

    op.create_table(
        "join_arrival",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("traversal_id", sa.String(length=36), nullable=False),
        sa.Column("node", sa.String(length=255), nullable=False),
        sa.Column("sender", sa.String(length=255), nullable=False),
        sa.Column("payload", LONG_TEXT, nullable=True),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_join_arrival_stack_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_join_arrival")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(
        op.f("ix_join_arrival_traversal_id_node"),
        "join_arrival",
        ["traversal_id", "node"],
        unique=False,
    )

    op.create_table(
        "resource",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("root_stack_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("resource_type", sa.String(length=255), nullable=False),
        sa.Column("physical_resource_id", sa.String(length=255), nullable=True),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=64), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("requires", LONG_TEXT, nullable=False),
        sa.Column("replaces", sa.Integer(), nullable=True),
        sa.Column("replaced_by", sa.Integer(), nullable=True),
        sa.Column("current_template_id", sa.Integer(), nullable=True),
        sa.Column("engine_id", sa.String(length=36), nullable=True),
        sa.Column("atomic_key", sa.Integer(), nullable=False),
        sa.Column("rsrc_metadata", LONG_TEXT, nullable=True),
        sa.Column("metadata_generation", sa.Integer(), nullable=False),
        sa.Column("properties_data_id", sa.Integer(), nullable=True),
        sa.Column("attr_data_id", sa.Integer(), nullable=True),
        sa.Column("created_at", DATETIME, nullable=False),
        sa.Column("updated_at", DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["attr_data_id"],
            ["resource_properties_data.id"],
            name=op.f("fk_resource_attr_data_id"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["current_template_id"],
            ["raw_template.id"],
            name=op.f("fk_resource_current_template_id"),
        ),
        sa.ForeignKeyConstraint(
            ["properties_data_id"],
            ["resource_properties_data.id"],
            name=op.f("fk_resource_properties_data_id"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_resource_stack_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource")),
        sa.UniqueConstraint("uuid", name=op.f("uq_resource_uuid")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(
        op.f("ix_resource_physical_resource_id"),
        "resource",
        ["physical_resource_id"],
        unique=False,
    )
    op.create_index(op.f("ix_resource_root_stack_id"), "resource", ["root_stack_id"], unique=False)
    op.create_index(
        op.f("ix_resource_stack_id_name"), "resource", ["stack_id", "name"], unique=False
    )

    op.create_table(
        "stack_tag",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("tag", sa.String(length=80), nullable=False),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_stack_tag_stack_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stack_tag")),
        sa.UniqueConstraint("stack_id", "tag", name=op.f("uq_stack_tag_stack_id_tag")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )
    op.create_index(op.f("ix_stack_tag_tag"), "stack_tag", ["tag"], unique=False)

    op.create_table(
        "resource_data",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("resource_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", LONG_TEXT, nullable=False),
        sa.Column("redact", sa.Boolean(), nullable=False),
        sa.Column("decrypt_method", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["resource_id"],
            ["resource.id"],
            name=op.f("fk_resource_data_resource_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource_data")),
        sa.UniqueConstraint("resource_id", "key", name=op.f("uq_resource_data_resource_id_key")),
        mysql_charset="utf8mb4",
        mysql_collate="utf8mb4_bin",
    )


def downgrade() -> None:
    op.drop_table("resource_data")
    op.drop_table("stack_tag")
    op.drop_table("resource")
    op.drop_table("join_arrival")
    op.drop_table("event")
    op.drop_table("stack")
    op.drop_table("raw_template")
    op.drop_table("user_creds")
    op.drop_table("resource_properties_data")
    op.drop_table("raw_template_files")
