"""Alembic environment: runs on the connection :mod:`thermik.persistence.migration` passes.

Revisions are written by hand; ``tests/contract/test_migrations.py`` checks that the migrated
schema equals the models on every backend.
"""

from __future__ import annotations

from alembic import context

from thermik.errors import ConfigError
from thermik.persistence import models, models_software

assert models_software  # the import registers the tables on the shared metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise ConfigError("run migrations with 'thermik-manage db sync', not the alembic command")
context.configure(
    connection=connection,
    target_metadata=models.Base.metadata,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
