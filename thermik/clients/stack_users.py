"""Stack domain users: Keystone users of their own for what runs inside a stack's servers.

A server's agent (os-collect-config polling Thermik, POLL_SERVER_HEAT) and a wait condition
handle need credentials that can be written into a server, so they must be worth little:
Heat's answer, kept here, is a user in a domain of its own (``stack_user_domain_id`` or
``_name``) that holds nothing else, in a project of the stack's (one per stack tree, created on
first use), with only the ``heat_stack_user`` role, which Thermik's policy allows to signal and
read its own resource's metadata and nothing more. The domain's administrator
(``stack_domain_admin``) makes and deletes these users and projects; the domain and the
administrator are made once by :func:`setup_domain` (``thermik-manage keystone setup-domain``).

Names are derived from what they belong to (the project from the root stack's id, the user from
the resource version's creation tag), so an engine that crashed after a create finds what it
made instead of leaking it.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from openstack.connection import Connection

from thermik.clients.calls import CloudClient
from thermik.clients.keystone import identity, v3_url
from thermik.clients.pool import ClientPool, Credential
from thermik.conf.settings import KeystoneSettings
from thermik.errors import CloudConflict, CloudFault, CloudGone, ConfigError

#: Prefix of the projects of stack users (``thermik-<root stack id>``).
PROJECT_PREFIX = "thermik-"
#: Keystone options that exempt generated users from the cloud's password rules (a password
#: that expires, or must be changed first, would break a server's agent).
_USER_OPTIONS = {
    "ignore_change_password_upon_first_use": True,
    "ignore_password_expiry": True,
    "ignore_lockout_failure_attempts": True,
}


class StackUser(NamedTuple):
    """A stack user's credentials: what a server's agent authenticates with."""

    user_id: str
    password: str
    project_id: str


def generate_password() -> str:
    """A random password of 32 URL-safe characters (192 bits)."""
    return secrets.token_urlsafe(24)


def project_name(root_stack_id: str) -> str:
    """The name of the stack user project of the stack tree rooted at ``root_stack_id``."""
    return f"{PROJECT_PREFIX}{root_stack_id}"[:64]


class StackDomainUsers:
    """The stack user domain, administered as ``stack_domain_admin``.

    Raises:
        ConfigError: no stack user domain is configured, or Keystone's URL is unknown.
    """

    def __init__(self, pool: ClientPool, settings: KeystoneSettings) -> None:
        domain = settings.stack_domain
        if not domain.configured or not domain.admin or not domain.admin_password:
            raise ConfigError(
                "stack users need a stack user domain: set stack_user_domain_name (or _id), "
                "stack_domain_admin and stack_domain_admin_password ([DEFAULT]; "
                "thermik-manage keystone setup-domain creates them)"
            )
        if not settings.auth_uri:
            raise ConfigError(
                "Keystone's URL is not configured: set [clients_keystone] auth_uri or "
                "[keystone_authtoken] www_authenticate_uri"
            )
        self.pool = pool
        self.settings = domain
        #: Keystone's v3 URL, as agents inside servers reach it.
        self.auth_url = v3_url(settings.auth_uri)
        scope = (
            {"domain_id": domain.domain_id, "user_domain_id": domain.domain_id}
            if domain.domain_id
            else {
                "domain_name": str(domain.domain_name),
                "user_domain_name": str(domain.domain_name),
            }
        )
        self.admin = Credential.from_auth(
            auth_url=self.auth_url,
            username=domain.admin,
            password=domain.admin_password,
            **scope,
        )
        self._lock = threading.Lock()
        self._domain_id = domain.domain_id
        self._role_id: str | None = None
        self._projects: dict[str, str] = {}

    def project_for(self, root_stack_id: str, tenant: str) -> str:
        """The id of the stack tree's project, created on first use."""
        with self._lock:
            known = self._projects.get(root_stack_id)
        if known is not None:
            return known
        domain_id = self.domain_id()
        name = project_name(root_stack_id)
        description = f"Thermik stack user project of stack {root_stack_id} of project {tenant}"
        found, _ = self._find_or_create(
            lambda: self._find_project(name, domain_id),
            lambda conn: identity(conn).create_project(
                name=name, domain_id=domain_id, description=description
            ),
        )
        with self._lock:
            self._projects[root_stack_id] = found
        return found

    def create_user(self, project_id: str, name: str) -> StackUser:
        """A user ``name`` in ``project_id`` with the stack user role and a new password.

        A user of that name made by an interrupted earlier call is taken and given a new
        password, so a retried create leaves no second user behind.
        """
        domain_id = self.domain_id()
        role_id = self.role_id()
        password = generate_password()
        user_id, created = self._find_or_create(
            lambda: self._find_user(name, domain_id),
            lambda conn: identity(conn).create_user(
                name=name,
                password=password,
                domain_id=domain_id,
                default_project_id=project_id,
                options=_USER_OPTIONS,
                description="Thermik stack user",
            ),
        )
        if not created:
            self._set_password(user_id, password)
        self._client().call(
            lambda conn: identity(conn).assign_project_role_to_user(project_id, user_id, role_id)
        )
        return StackUser(user_id, password, project_id)

    def credential(self, user: StackUser) -> Credential:
        """The credential of ``user`` on its project."""
        return Credential.from_auth(
            auth_url=self.auth_url,
            user_id=user.user_id,
            password=user.password,
            project_id=user.project_id,
        )

    def client(self, user: StackUser, service: str) -> CloudClient:
        """A client of ``service`` acting as ``user`` in its project (its connection, and
        so its token, is kept in the pool while used)."""
        return self.pool.client(self.credential(user), service)

    def token(self, user: StackUser) -> str:
        """A Keystone token of ``user`` on its project (what a TOKEN_SIGNAL handle hands
        out: it lives as long as Keystone's tokens do)."""
        credential = self.credential(user)
        try:
            return str(
                self.pool.client(credential, "keystone").call(
                    lambda conn: conn.session.get_token()
                )
            )
        finally:
            self.pool.discard(credential)

    def delete_user(self, user_id: str) -> None:
        """Delete a stack user; one that is gone already is fine.

        Raises:
            CloudFault: ``user_id`` is not a user of the stack user domain.
        """
        client = self._client()
        try:
            user = client.call(lambda conn: identity(conn).get_user(user_id))
        except CloudGone:
            return
        if user.domain_id != self.domain_id():
            raise CloudFault(f"user {user_id} is not a stack user: it is not in the stack domain")
        client.call(lambda conn: identity(conn).delete_user(user_id, ignore_missing=True))

    def delete_project(self, root_stack_id: str) -> None:
        """Delete the stack tree's project and any user left in it; none is fine."""
        domain_id = self.domain_id()
        with self._lock:
            self._projects.pop(root_stack_id, None)
        project_id = self._find_project(project_name(root_stack_id), domain_id)
        if project_id is None:
            return
        client = self._client()
        left = client.call(
            lambda conn: [
                a.user["id"]
                for a in identity(conn).role_assignments(scope_project_id=project_id)
                if a.user
            ]
        )
        for user_id in dict.fromkeys(left):
            self.delete_user(user_id)
        client.call(lambda conn: identity(conn).delete_project(project_id, ignore_missing=True))

    def domain_id(self) -> str:
        """The stack user domain's id (from the administrator's token when configured by
        name)."""
        with self._lock:
            if self._domain_id is not None:
                return self._domain_id
        found = self._client().call(_token_domain_id)
        with self._lock:
            self._domain_id = found
        return found

    def role_id(self) -> str:
        """The id of the stack user role."""
        with self._lock:
            if self._role_id is not None:
                return self._role_id
        role_name = self.settings.user_role
        role = self._client().call(lambda conn: identity(conn).find_role(role_name))
        if role is None:
            raise CloudFault(
                f"Keystone has no role {role_name} for stack users: create it "
                "(thermik-manage keystone setup-domain does)"
            )
        with self._lock:
            self._role_id = str(role.id)
        return self._role_id

    def _client(self) -> CloudClient:
        return self.pool.client(self.admin, "keystone")

    def _find_or_create(
        self, find: Callable[[], str | None], create: Callable[[Connection], Any]
    ) -> tuple[str, bool]:
        """The id of what ``find`` finds, else of what ``create`` makes; and whether it made it.

        Losing a race to make it (Keystone answers 409 for a taken name) finds the winner's.
        """
        found = find()
        if found is not None:
            return found, False
        try:
            return str(self._client().call(create, idempotent=False).id), True
        except CloudConflict:
            found = find()
            if found is None:
                raise
            return found, False

    def _find_project(self, name: str, domain_id: str) -> str | None:
        project = self._client().call(
            lambda conn: identity(conn).find_project(name, domain_id=domain_id)
        )
        return None if project is None else str(project.id)

    def _find_user(self, name: str, domain_id: str) -> str | None:
        user = self._client().call(
            lambda conn: identity(conn).find_user(name, domain_id=domain_id)
        )
        return None if user is None else str(user.id)

    def _set_password(self, user_id: str, password: str) -> None:
        self._client().call(lambda conn: identity(conn).update_user(user_id, password=password))


def _token_domain_id(conn: Connection) -> str:
    auth: Any = conn.session.auth
    domain_id = auth.get_access(conn.session).domain_id
    if not domain_id:
        raise CloudFault("the stack domain admin's token is not scoped to the stack domain")
    return str(domain_id)


@dataclasses.dataclass(frozen=True, slots=True)
class DomainSetup:
    """What :func:`setup_domain` found or made."""

    domain_id: str
    domain_name: str
    admin: str
    admin_id: str
    created: tuple[str, ...]
    #: The administrator's password when this call set it, else ``None`` (it was kept).
    password: str | None = dataclasses.field(repr=False)


def setup_domain(
    client: CloudClient,
    domain_name: str,
    admin: str,
    password: str | None,
    stack_user_role: str = "heat_stack_user",
) -> DomainSetup:
    """Make (or find) the stack user domain, its administrator and the stack user role.

    ``client`` acts as a cloud administrator. An existing administrator keeps its password
    unless ``password`` is given; a new one gets ``password`` or a generated one. Running it
    again changes nothing but that.
    """
    created: list[str] = []
    domain = client.call(lambda conn: identity(conn).find_domain(domain_name))
    if domain is None:
        domain = client.call(
            lambda conn: identity(conn).create_domain(
                name=domain_name, description="Users and projects created by Thermik's stacks"
            ),
            idempotent=False,
        )
        created.append(f"domain {domain_name}")
    domain_id = str(domain.id)
    user = client.call(lambda conn: identity(conn).find_user(admin, domain_id=domain_id))
    if user is None:
        password = password or generate_password()
        new_password = password
        user = client.call(
            lambda conn: identity(conn).create_user(
                name=admin,
                password=new_password,
                domain_id=domain_id,
                description="Administrator of Thermik's stack user domain",
            ),
            idempotent=False,
        )
        created.append(f"user {admin}")
    elif password:
        user_id, new_password = str(user.id), password
        client.call(lambda conn: identity(conn).update_user(user_id, password=new_password))
    admin_id = str(user.id)
    roles = {name: _ensure_role(client, name, created) for name in ("admin", stack_user_role)}
    client.call(
        lambda conn: identity(conn).assign_domain_role_to_user(domain_id, admin_id, roles["admin"])
    )
    return DomainSetup(domain_id, domain_name, admin, admin_id, tuple(created), password)


def _ensure_role(client: CloudClient, name: str, created: list[str]) -> Any:
    role = client.call(lambda conn: identity(conn).find_role(name))
    if role is None:
        role = client.call(lambda conn: identity(conn).create_role(name=name))
        created.append(f"role {name}")
    return role
