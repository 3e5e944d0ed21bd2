"""Fewer index pages per resource action: no index on join arrivals, and the physical id
index leaves out versions that have none yet.

Revision ID: 0004_lighter_action_writes
Revises: 0003_engines
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_lighter_action_writes"
down_revision = "0003_engines"
branch_labels = None
depends_on = None

HAS_PHYSICAL_ID = sa.text("physical_resource_id IS NOT NULL")


def upgrade() -> None:
    op.drop_index("ix_join_arrival_traversal_id_node", table_name="join_arrival")
    op.drop_index("ix_resource_physical_resource_id", table_name="resource")
    op.create_index(
        "ix_resource_physical_resource_id",
        "resource",
        ["physical_resource_id"],
        sqlite_where=HAS_PHYSICAL_ID,
        postgresql_where=HAS_PHYSICAL_ID,
    )


def downgrade() -> None:
    op.drop_index("ix_resource_physical_resource_id", table_name="resource")
    op.create_index("ix_resource_physical_resource_id", "resource", ["physical_resource_id"])
    op.create_index(
        "ix_join_arrival_traversal_id_node", "join_arrival", ["traversal_id", "node"]
    )
