"""Connections and transactions for one database, built from :class:`DatabaseSettings`.

Every store operation is a function of a :class:`~sqlalchemy.Connection` run by
:meth:`Database.write` or :meth:`Database.read` inside one transaction. On SQLite all writes of
the process go through one writer connection (:mod:`~thermik.persistence.sqlite_writer`, which
batches the writes that queue up into one transaction) and start with ``BEGIN IMMEDIATE``:
SQLite admits one writer at a time, and letting many connections race for it only produces
``database is locked``. Readers use their own pooled connections (WAL lets them run beside the
writer). PostgreSQL and MariaDB run transactions in READ COMMITTED, and a deadlock or
serialization failure re-runs the whole transaction (tenacity).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import tenacity
from sqlalchemy import Connection, Engine, create_engine, event, exc, make_url
from sqlalchemy.engine import URL
from sqlalchemy.pool import ConnectionPoolEntry

from thermik.conf.settings import DatabaseSettings
from thermik.errors import ConfigError, DatabaseUnavailable, ThermikError
from thermik.persistence import dberrors
from thermik.persistence.group_commit import GroupCommit
from thermik.persistence.sqlite_writer import SqliteWriter, on_driver

T = TypeVar("T")
Work = Callable[[Connection], T]

_RETRY_ATTEMPTS = 6
_SERVER_DIALECTS = ("postgresql", "mysql", "mariadb")
#: The extra that installs each server's supported driver, and the URL scheme that uses it.
_DRIVER_EXTRAS = {
    "postgresql": ("postgresql", "postgresql+psycopg"),
    "mysql": ("mysql", "mysql+pymysql"),
    "mariadb": ("mysql", "mysql+pymysql"),
}
#: SQLite copies the WAL back into the database after this many pages (its default: 1,000).
#: A chain of resources commits once per resource and rewrites the same pages (its rows, their
#: blobs) commit after commit; a checkpoint copies each page once however often it changed, so
#: rarer checkpoints copy far less (a 3,000 chain updated 18% and deleted 12% faster in
#: ``bench/convergence_bench.py``). The WAL file grows to about 40 MB between checkpoints.
WAL_CHECKPOINT_PAGES = 10_000


#: Server databases: a connection back in the pool for this long is pinged before it is used
#: again. A ping on every checkout was one of the four round trips of a lone transaction (with
#: BEGIN, the statement and COMMIT); a connection found dead before COMMIT is sent costs only a
#: re-run (see ``_run_retrying``), so only one that idled, the kind a server or proxy drops, is
#: checked first.
PING_AFTER_IDLE_S = 1.0
#: Where a pool entry keeps when it was last returned (``time.monotonic``).
_RETURNED_AT = "thermik_returned_at"


#: Server databases: how many shared transactions of lazy writes run at once (each on a
#: connection of its own; see :mod:`~thermik.persistence.group_commit`).
GROUP_COMMIT_LANES = 4


class Database:
    """The engines of one database and the rules for running a transaction on them."""

    def __init__(
        self,
        settings: DatabaseSettings,
        *,
        lanes: int = GROUP_COMMIT_LANES,
        ping_after_idle_s: float = PING_AFTER_IDLE_S,
    ) -> None:
        self.url = _parse_url(settings.connection)
        self.where = self.url.render_as_string(hide_password=True)
        self.dialect = self.url.get_backend_name()
        if self.dialect == "sqlite":
            self._writer_engine = _sqlite_engine(self.url, settings, "BEGIN IMMEDIATE", 1)
            self._reader_engine = _sqlite_engine(self.url, settings, "BEGIN", settings.pool_size)
        elif self.dialect in _SERVER_DIALECTS:
            self._writer_engine = _server_engine(self.url, settings, ping_after_idle_s)
            self._reader_engine = self._writer_engine
        else:
            raise ConfigError(
                f"[database] connection: unsupported database {self.dialect!r} "
                "(use sqlite, postgresql+psycopg or mysql+pymysql)"
            )
        self._writer = (
            SqliteWriter(self._writer_engine.connect) if self.dialect == "sqlite" else None
        )
        server = self._writer_engine
        self._group = (
            None
            if self._writer is not None
            else GroupCommit(
                server.connect, lambda work, whole: _run_retrying(work, server, whole), lanes
            )
        )

    @property
    def is_sqlite(self) -> bool:
        """Whether this is the embedded SQLite database (one writer at a time)."""
        return self.dialect == "sqlite"

    @property
    def write_transactions(self) -> int | None:
        """SQLite: how many write transactions ran so far (``None`` on the server databases)."""
        return None if self._writer is None else self._writer.transactions

    def write(self, work: Work[T], *, lazy: bool = False, whole: bool = False) -> T:
        """Run ``work`` in one write transaction; commit if it returns, roll back if it raises.

        ``lazy``: a write with no effect outside the database, which may share its
        transaction with others. On SQLite it returns before the commit, which follows within
        milliseconds and before any other write or read of this process (see
        :mod:`~thermik.persistence.sqlite_writer`); on the server databases it shares the
        transaction and the commit of the lazy writes queued beside it and returns once they
        have committed (:mod:`~thermik.persistence.group_commit`).

        ``whole``: ``work`` changes the database in one statement that writes all or nothing
        by itself (whatever it reads afterwards). On PostgreSQL such a write, when it runs
        alone, is committed by the server as it ends: no ``BEGIN`` and ``COMMIT`` round trips.
        (Elsewhere it runs in a transaction: PyMySQL switches autocommit on and off with a
        round trip each.)
        """
        whole = whole and self.dialect == "postgresql"
        if self._writer is not None:
            writer = self._writer
            return self._guarded(lambda: writer.write(work, lazy=lazy))
        if lazy and self._group is not None:
            group = self._group
            return self._guarded(lambda: group.write(work, whole=whole))
        engine = self._writer_engine
        return self._guarded(lambda: _run_retrying(work, engine, whole))

    def read(self, work: Work[T]) -> T:
        """Run ``work`` in one read transaction (a consistent snapshot on every backend) that
        sees every write this process made before."""
        if self._writer is not None:
            writer = self._writer
            return self._guarded(lambda: _read_after(writer, work, self._reader_engine))
        return self._retrying(work, self._reader_engine)

    def dispose(self) -> None:
        """Close every connection; the database may be used again afterwards."""
        if self._writer is not None:
            self._writer.close()
        self._writer_engine.dispose()
        self._reader_engine.dispose()

    def _retrying(self, work: Work[T], engine: Engine) -> T:
        return self._guarded(lambda: _run_retrying(work, engine, False))

    def _guarded(self, run: Callable[[], T]) -> T:
        try:
            return run()
        except (ThermikError, exc.IntegrityError):
            # Integrity errors mean something to the caller (duplicate name, missing parent).
            raise
        except (exc.DBAPIError, exc.TimeoutError) as error:
            raise dberrors.translate(error, self.where) from error


def _read_after(writer: SqliteWriter, work: Work[T], engine: Engine) -> T:
    writer.commit_lazy()
    return _run_on_pool(work, engine)


class _Unsent(Exception):
    """The connection of a transaction was found dead before its ``COMMIT`` was sent: the
    server rolled the transaction back, and the pool has dropped its connections (SQLAlchemy
    invalidates the whole pool on a disconnect), so running it again is safe."""

    def __init__(self, error: exc.DBAPIError) -> None:
        super().__init__(str(error))
        self.error = error


def _run_retrying(work: Work[T], engine: Engine, whole: bool) -> T:
    """Run ``work`` on the pool (``whole``: see :meth:`Database.write`); again while it loses
    deadlocks or serialization conflicts, and once more if its connection was dead before it
    committed.
    The first attempt builds no retry machinery: it almost always succeeds, and building a
    ``tenacity.Retrying`` per transaction was the largest single cost a profile of a
    PostgreSQL create showed in the persistence layer."""
    try:
        return _run_on_pool(work, engine, whole)
    except _Unsent:
        return _run_resent(work, engine, whole)
    except exc.DBAPIError as error:
        if not dberrors.is_retryable(error):
            raise
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception(dberrors.is_retryable),
        stop=tenacity.stop_after_attempt(_RETRY_ATTEMPTS - 1),
        wait=tenacity.wait_random_exponential(multiplier=0.01, max=0.5),
        reraise=True,
    )
    result: T = retrying(_run_resent, work, engine, whole)
    return result


def _run_resent(work: Work[T], engine: Engine, whole: bool) -> T:
    # A second dead connection in a row is the server's state, not a dropped connection's.
    try:
        return _run_on_pool(work, engine, whole)
    except _Unsent as unsent:
        raise unsent.error from None


def _run_on_pool(work: Work[T], engine: Engine, whole: bool = False) -> T:
    with engine.connect() as connection:
        if whole:
            # A connection lost meanwhile leaves it unknown whether the statement committed,
            # as a lost COMMIT does: it is not run again.
            return work(connection.execution_options(isolation_level="AUTOCOMMIT"))
        transaction = connection.begin()
        try:
            result = work(connection)
        except exc.DBAPIError as error:
            if error.connection_invalidated:
                raise _Unsent(error) from error
            raise
        transaction.commit()
        return result


def _parse_url(connection: str) -> URL:
    try:
        url = make_url(connection)
    except exc.ArgumentError as error:
        raise ConfigError(f"[database] connection: not a database URL: {error}") from error
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        raise ConfigError(
            "[database] connection: in-memory SQLite cannot be shared between connections; "
            "give a file (sqlite:////path/thermik.sqlite)"
        )
    return url


def _sqlite_engine(url: URL, settings: DatabaseSettings, begin: str, pool_size: int) -> Engine:
    assert url.database is not None
    try:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatabaseUnavailable(
            f"database {url}: cannot create its directory: {error}"
        ) from None
    engine = create_engine(
        url,
        echo=settings.echo,
        pool_size=pool_size,
        max_overflow=0 if pool_size == 1 else pool_size,
        connect_args={"check_same_thread": False, "timeout": settings.busy_timeout},
    )
    busy_ms = settings.busy_timeout * 1000

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Autocommit at the driver level so that the BEGIN below is the only transaction start.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
        cursor.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode survives any process crash; only a power loss can drop the last
        # commits, and an fsync per commit would cost more than the whole write path.
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        driver = connection.connection.driver_connection
        # The writer may have begun on the driver already (``Database._run_on_writer``).
        if not driver.in_transaction:  # type: ignore[union-attr]
            on_driver(driver, begin)

    return engine


def _server_engine(url: URL, settings: DatabaseSettings, ping_after_idle_s: float) -> Engine:
    if url.get_backend_name() in ("mysql", "mariadb") and "charset" not in url.query:
        url = url.update_query_dict({"charset": "utf8mb4"})
    try:
        # Up to twice ``pool_size`` connections, as before, but every one opened is kept: an
        # overflow connection was closed on its return whenever ``pool_size`` idled, so each
        # burst of concurrent writes (an engine runs 16 job threads) opened connections anew,
        # and opening one costs 2 ms of CPU with psycopg and 35 ms with PyMySQL (its TLS
        # context).
        engine = create_engine(
            url,
            echo=settings.echo,
            pool_size=2 * settings.pool_size,
            max_overflow=0,
            isolation_level="READ COMMITTED",
        )
    except ImportError as error:
        raise _missing_driver(url, error) from None
    _ping_after_idle(engine, ping_after_idle_s)
    return engine


def _ping_after_idle(engine: Engine, idle_s: float) -> None:
    """Ping a connection on its checkout only if it idled in the pool for ``idle_s``; one that
    does not answer is replaced before the caller sees it."""

    @event.listens_for(engine, "connect")
    def _connected(_dbapi_connection: Any, entry: ConnectionPoolEntry) -> None:
        entry.info[_RETURNED_AT] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection: Any, entry: ConnectionPoolEntry) -> None:
        entry.info[_RETURNED_AT] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection: Any, entry: ConnectionPoolEntry, _proxy: Any) -> None:
        returned = entry.info.get(_RETURNED_AT)
        if returned is not None and time.monotonic() - returned < idle_s:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            # The pool closes this connection and checks out another (up to three times).
            raise exc.DisconnectionError(str(error)) from error


def _missing_driver(url: URL, error: ImportError) -> ConfigError:
    """Which extra to install when the driver of a server URL cannot be imported."""
    extra, scheme = _DRIVER_EXTRAS[url.get_backend_name()]
    return ConfigError(
        f"[database] connection: a {url.drivername}:// URL needs the Python module "
        f"{error.name or url.get_driver_name()!r}, which is not installed. Thermik supports "
        f"{url.get_backend_name()} through pip install 'thermik[{extra}]' and a {scheme}:// URL."
    )
