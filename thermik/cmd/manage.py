"""The ``thermik-manage`` command: database schema and maintenance.

``db sync`` migrates the configured database to the code's schema, ``db version`` shows the
revision it is at, ``purge-deleted --age N`` removes stacks soft-deleted longer ago than that,
``keystone setup-domain`` creates the stack user domain and its administrator
(:mod:`thermik.cmd.keystone_setup`).
Configuration and logging as in every service command (:mod:`thermik.cmd.service_config`);
without a configured ``[database] connection`` it works on the embedded SQLite default.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from thermik.cmd import keystone_setup, service_config
from thermik.conf import settings as config
from thermik.errors import ThermikError
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store

GRANULARITY = ("days", "hours", "minutes", "seconds")


def _add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    db = commands.add_parser("db", help="database schema").add_subparsers(
        dest="db_command", required=True
    )
    sync = db.add_parser("sync", help="migrate the database to the current schema")
    sync.add_argument("--revision", default="head", help="target revision (default: head)")
    db.add_parser("version", help="show the schema revision of the database")
    purge = commands.add_parser("purge-deleted", help="remove stacks deleted long ago")
    purge.add_argument("--age", type=_non_negative, required=True, help="minimum age")
    purge.add_argument("--granularity", choices=GRANULARITY, default="days", help="unit of --age")
    keystone_setup.add_parser(commands)


COMMAND = cfg.SubCommandOpt("command", title="commands", handler=_add_commands)


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def _sync(settings: config.Settings, args: Any) -> str:
    db = Database(settings.database)
    try:
        migration.upgrade(db, args.revision)
        return f"database {db.where} is at schema revision {migration.current_revision(db)}"
    finally:
        db.dispose()


def _version(settings: config.Settings, args: Any) -> str:
    db = Database(settings.database)
    try:
        current = migration.current_revision(db)
    finally:
        db.dispose()
    if current is None:
        return "none (run 'thermik-manage db sync')"
    head = migration.head_revision()
    return current if current == head else f"{current} (this Thermik's schema is {head})"


def _purge(settings: config.Settings, args: Any) -> str:
    age = datetime.timedelta(**{args.granularity: args.age})
    store = open_store(settings.database, settings.auth_encryption_key)
    try:
        purged = store.purge_deleted(datetime.datetime.now(datetime.UTC) - age)
    finally:
        store.close()
    return f"purged {purged} stack(s) deleted more than {args.age} {args.granularity} ago"


COMMANDS: dict[str, Callable[[config.Settings, Any], str]] = {
    "sync": _sync,
    "version": _version,
    "purge-deleted": _purge,
    "setup-domain": keystone_setup.setup_domain_command,
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``thermik-manage`` console script."""
    try:
        conf = service_config.parse(
            "thermik-manage", __doc__, sys.argv[1:] if argv is None else argv, [COMMAND]
        )
        service_config.setup_logging(conf)
        args = conf.command
        command = {"db": "db_command", "keystone": "keystone_command"}.get(args.name)
        command = getattr(args, command) if command else args.name
        print(COMMANDS[command](config.Settings.from_conf(conf), args))
    except (ThermikError, cfg.Error) as error:
        print(f"thermik-manage: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
