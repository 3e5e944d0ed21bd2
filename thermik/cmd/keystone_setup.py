"""``thermik-manage keystone setup-domain``: the stack user domain and its administrator.

As ``heat-keystone-setup-domain`` does for Heat: with a cloud administrator's credentials
(``--os-cloud NAME`` of a ``clouds.yaml``, or the ``OS_*`` variables), it creates the Keystone
domain that holds stack users, a user administering it (with the ``admin`` role on the
domain) and the stack user role, then prints the lines to put in thermik.conf. It may be run
again: what exists is kept, and the administrator's password is only changed when one is given.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from thermik.conf import settings as config
from thermik.errors import ConfigError

if TYPE_CHECKING:
    from thermik.clients.pool import Credential
    from thermik.clients.stack_users import DomainSetup

DEFAULT_DOMAIN = "thermik"
DEFAULT_ADMIN = "thermik_stack_admin"
#: Where the administrator's password may come from instead of the command line.
PASSWORD_VARIABLE = "THERMIK_DOMAIN_PASSWORD"


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``keystone setup-domain`` to thermik-manage's commands.

    Its arguments have destinations of their own: oslo.config reads an option's value from
    the command line's namespace by name, so ``stack_domain_admin`` here would set it there.
    """
    keystone = commands.add_parser("keystone", help="Keystone set-up").add_subparsers(
        dest="keystone_command", required=True
    )
    setup = keystone.add_parser(
        "setup-domain", help="create the stack user domain and its administrator"
    )
    setup.add_argument(
        "--stack-user-domain-name",
        dest="new_domain",
        default=DEFAULT_DOMAIN,
        help=f"name of the domain of stack users (default: {DEFAULT_DOMAIN})",
    )
    setup.add_argument(
        "--stack-domain-admin",
        dest="new_admin",
        default=DEFAULT_ADMIN,
        help=f"name of the domain's administrator (default: {DEFAULT_ADMIN})",
    )
    setup.add_argument(
        "--stack-domain-admin-password",
        dest="new_admin_password",
        help=f"its password (or ${PASSWORD_VARIABLE}); a new administrator without one gets "
        "a generated password, an existing one keeps its own",
    )
    setup.add_argument(
        "--stack-user-role",
        dest="new_role",
        help="the role of stack users (default: [DEFAULT] heat_stack_user_role)",
    )
    setup.add_argument(
        "--os-cloud",
        dest="admin_cloud",
        default=os.environ.get("OS_CLOUD"),
        help="the cloud administrator's cloud in clouds.yaml (default: $OS_CLOUD; without "
        "one, the OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME ... variables)",
    )


def admin_credential(cloud: str | None, environ: Mapping[str, str]) -> Credential:
    """The cloud administrator's credential: a cloud of clouds.yaml, else ``OS_*``.

    Raises:
        ConfigError: neither names a Keystone and a user.
    """
    from thermik.clients.pool import Credential  # noqa: PLC0415 (openstacksdk: slow)

    if cloud:
        return Credential.from_cloud(cloud, environ.get("OS_CLIENT_CONFIG_FILE"))
    missing = [
        name for name in ("OS_AUTH_URL", "OS_USERNAME", "OS_PASSWORD") if not environ.get(name)
    ]
    if missing:
        raise ConfigError(
            "no cloud administrator to act as: give --os-cloud NAME or set " + ", ".join(missing)
        )
    auth = {
        "auth_url": environ["OS_AUTH_URL"],
        "username": environ["OS_USERNAME"],
        "password": environ["OS_PASSWORD"],
        "user_domain_name": environ.get("OS_USER_DOMAIN_NAME", "Default"),
        "project_domain_name": environ.get("OS_PROJECT_DOMAIN_NAME", "Default"),
    }
    if environ.get("OS_PROJECT_NAME"):
        auth["project_name"] = environ["OS_PROJECT_NAME"]
    return Credential.from_auth(**auth)


def setup_domain_command(settings: config.Settings, args: Any) -> str:
    """Run ``keystone setup-domain`` and say what to configure."""
    # Imported here: openstacksdk takes a second to import, which the db commands need not.
    from thermik.clients.pool import ClientPool  # noqa: PLC0415
    from thermik.clients.stack_users import setup_domain  # noqa: PLC0415

    password = args.new_admin_password or os.environ.get(PASSWORD_VARIABLE)
    role = args.new_role or settings.keystone.stack_domain.user_role
    pool = ClientPool(settings.clients)
    try:
        client = pool.client(admin_credential(args.admin_cloud, os.environ), "keystone")
        done = setup_domain(client, args.new_domain, args.new_admin, password, role)
    finally:
        pool.close()
    return report(done)


def report(done: DomainSetup) -> str:
    """What was made, and the thermik.conf lines of the domain."""
    made = "created " + ", ".join(done.created) if done.created else "everything existed already"
    password = (
        f"stack_domain_admin_password = {done.password}"
        if done.password
        else "# stack_domain_admin_password: unchanged (the one set before)"
    )
    return "\n".join(
        [
            f"{made}.",
            "Put these lines in [DEFAULT] of thermik.conf:",
            f"stack_user_domain_id = {done.domain_id}",
            f"stack_domain_admin = {done.admin}",
            password,
        ]
    )
