"""The composition root: configuration in, a running engine and the orchestration service out.

:func:`build_orchestration_service` is what ``thermik-api`` and the ``thermik`` CLI call;
:func:`start_engine` is what ``thermik-engine`` runs. Both build the Store (the embedded SQLite
database is created and migrated on first use; a server database must be migrated with
``thermik-manage db sync``), load the resource plugins from their entry points, start the actor
runtime and let it resume the stacks whose operation was interrupted.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from thermik.actors.runtime import EngineRuntime
from thermik.conf.settings import Settings
from thermik.orchestration import Orchestrator
from thermik.persistence import migration
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store
from thermik.resources import Registry

#: The file under the state directory that holds the embedded default's encryption key.
KEY_FILE = "auth_encryption_key"


def is_embedded(settings: Settings) -> bool:
    """Whether the database is the embedded SQLite file (migrated automatically)."""
    return settings.database.connection.startswith("sqlite")


def encryption_key(settings: Settings) -> str | None:
    """The key secrets are stored under.

    The embedded default needs no configuration: without a configured key, one is generated
    once and kept (readable by the user only) under the state directory.
    """
    if settings.auth_encryption_key or not is_embedded(settings):
        return settings.auth_encryption_key
    path = Path(settings.state_dir) / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process created it first; read theirs
        else:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(SecretBox.generate_key())
    return path.read_text(encoding="ascii").strip()


def open_engine_store(settings: Settings) -> Store:
    """The Store; the embedded SQLite database is migrated to the current schema first."""
    key = encryption_key(settings)
    if is_embedded(settings):
        db = Database(settings.database)
        try:
            if migration.current_revision(db) != migration.head_revision():
                migration.upgrade(db)
        finally:
            db.dispose()
    return open_store(settings.database, key)


@dataclasses.dataclass
class Engine:
    """A running engine: its Store, plugins and actor runtime."""

    store: Store
    registry: Registry
    runtime: EngineRuntime

    def close(self) -> None:
        """Stop the runtime (what it recorded stays), then release the database."""
        try:
            self.runtime.stop()
        finally:
            self.store.close()


def start_engine(settings: Settings) -> Engine:
    """Build the Store and the Registry, start the runtime and resume interrupted stacks."""
    store = open_engine_store(settings)
    try:
        registry = Registry.from_entry_points()
        runtime = EngineRuntime.start(store=store, registry=registry, settings=settings.engine)
    except BaseException:
        store.close()
        raise
    engine = Engine(store, registry, runtime)
    try:
        runtime.resume_incomplete()
    except BaseException:
        engine.close()
        raise
    return engine


def build_orchestration_service(settings: Settings) -> Orchestrator:
    """The orchestration service over a freshly started engine; ``close()`` stops both."""
    engine = start_engine(settings)
    return Orchestrator(engine.store, engine.registry, engine.runtime, settings.limits)
