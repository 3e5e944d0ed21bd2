"""Persistence: every fact about stacks, kept in SQL.

:class:`~thermik.persistence.store.Store` is the interface the rest of Thermik uses; it returns
frozen values from :mod:`thermik.persistence.values` and never ORM rows.
:func:`~thermik.persistence.factory.open_store` builds the SQLAlchemy implementation from
:class:`~thermik.conf.settings.DatabaseSettings`. Alembic migrations under ``migrations/`` own
the schema (``thermik-manage db sync``).
"""
