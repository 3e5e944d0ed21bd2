"""Classify driver errors: which are retryable, which mean "no schema", which "unreachable".

SQLAlchemy wraps every driver's exception in :class:`sqlalchemy.exc.DBAPIError`; the codes
below are those of SQLite, PostgreSQL (SQLSTATE) and MySQL/MariaDB (error numbers).

Only the errors about the database as a whole (unreachable, not migrated) name it: they are
what an operator starting a service reads. An error of one statement may end up in a stack's
status reason, which clients read, so it carries the driver's words and not the URL.
"""

from __future__ import annotations

from sqlalchemy import exc

from thermik.errors import DatabaseUnavailable, SchemaNotMigrated, StoreError, ThermikError

# PostgreSQL: serialization_failure, deadlock_detected. MySQL: deadlock, lock wait timeout.
_RETRY_SQLSTATES = frozenset({"40001", "40P01"})
_RETRY_MYSQL = frozenset({1205, 1213})
# PostgreSQL: undefined_table, undefined_column. MySQL: no such table, unknown column.
_SCHEMA_SQLSTATES = frozenset({"42P01", "42703"})
_SCHEMA_MYSQL = frozenset({1146, 1054})
_SCHEMA_SQLITE = ("no such table", "no such column", "has no column named")
# SQLite reports a damaged or foreign file as a generic DatabaseError.
_UNUSABLE_SQLITE = ("file is not a database", "disk image is malformed")
# PostgreSQL: unique_violation, foreign_key_violation. MySQL: duplicate key, FK child/parent.
_UNIQUE = ("23505", 1062, "UNIQUE constraint failed")
_FOREIGN = ("23503", 1451, 1452, "FOREIGN KEY constraint failed")


def _codes(error: exc.DBAPIError) -> tuple[str | None, int | None, str]:
    orig = error.orig
    sqlstate = getattr(orig, "sqlstate", None)
    args = getattr(orig, "args", ())
    number = args[0] if args and isinstance(args[0], int) else None
    return sqlstate, number, str(orig)


def _matches(error: exc.DBAPIError, signs: tuple[str | int, ...]) -> bool:
    sqlstate, number, text = _codes(error)
    for sign in signs:
        if isinstance(sign, int) and sign == number:
            return True
        if isinstance(sign, str) and (sign == sqlstate or (len(sign) > 5 and sign in text)):
            return True
    return False


def is_unique_violation(error: exc.DBAPIError) -> bool:
    """Whether ``error`` is a unique-constraint violation."""
    return isinstance(error, exc.IntegrityError) and _matches(error, _UNIQUE)


def is_foreign_key_violation(error: exc.DBAPIError) -> bool:
    """Whether ``error`` is a foreign-key violation."""
    return isinstance(error, exc.IntegrityError) and _matches(error, _FOREIGN)


def is_retryable(error: BaseException) -> bool:
    """Deadlocks and serialization failures: the whole transaction may simply be re-run."""
    if not isinstance(error, exc.DBAPIError):
        return False
    sqlstate, number, _ = _codes(error)
    return sqlstate in _RETRY_SQLSTATES or number in _RETRY_MYSQL


def _is_missing_schema(error: exc.DBAPIError) -> bool:
    sqlstate, number, text = _codes(error)
    return (
        sqlstate in _SCHEMA_SQLSTATES
        or number in _SCHEMA_MYSQL
        or any(sign in text for sign in _SCHEMA_SQLITE)
    )


def translate(error: Exception, where: str) -> ThermikError:
    """The one clear Thermik error for a driver failure at database ``where``."""
    if isinstance(error, exc.TimeoutError):
        return DatabaseUnavailable(f"database {where}: no free connection in the pool ({error})")
    if not isinstance(error, exc.DBAPIError):
        return StoreError(f"the database refused a statement: {error}")
    detail = str(error.orig).strip().splitlines()[0] if str(error.orig).strip() else "error"
    if _is_missing_schema(error):
        return SchemaNotMigrated(
            f"database {where} has no Thermik schema or an old one ({detail}); "
            "run 'thermik-manage db sync'"
        )
    unusable = any(sign in detail for sign in _UNUSABLE_SQLITE)
    if (
        isinstance(error, exc.OperationalError | exc.InterfaceError)
        or error.connection_invalidated
        or unusable
    ):
        return DatabaseUnavailable(f"database {where} is unavailable: {detail}")
    return StoreError(f"the database refused a statement: {detail}")
