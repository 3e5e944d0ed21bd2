"""Alembic migration scripts (see :mod:`thermik.persistence.migration`)."""
