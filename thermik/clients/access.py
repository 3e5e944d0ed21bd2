"""The cloud access of one stack (or one request): clients with its credential, cached look-ups.

:class:`StackCloud` is what plugins receive as ``ctx.cloud`` (the
:class:`~thermik.resources.cloud_access.CloudAccess` protocol). The engine makes one per stack
and traversal (:class:`CloudAccesses`), so a name is resolved once per traversal; the API makes
one per request to check custom constraints (:func:`constraint_validators`), so a template that
names one image fifty times costs one look-up.
"""

from __future__ import annotations

import collections
import concurrent.futures
import threading
from collections.abc import Callable, Mapping
from typing import Any

from thermik.clients.calls import CloudClient
from thermik.clients.credentials import CredentialSource, Requester
from thermik.clients.lookups import LOOKUPS, lookup_of
from thermik.clients.pool import ClientPool, Credential
from thermik.clients.rounds import LISTINGS, PollRounds
from thermik.errors import CloudError, CloudUnavailable
from thermik.persistence.values import UserCreds
from thermik.resources.net_constraints import PURE_CONSTRAINTS
from thermik.resources.remote_stack import REMOTE_STACK_CHECK, check_remote

#: How many traversals' accesses an engine keeps (each holds its look-up cache).
_KEPT_TRAVERSALS = 256


class StackCloud:
    """Clients acting with one credential, and the look-ups made with it so far.

    The credential is obtained on first use, on the thread that makes the first call (an
    executor thread: finding it may read the database or ask Keystone).
    """

    def __init__(self, pool: ClientPool, credential: Callable[[], Credential]) -> None:
        self._pool = pool
        self._get_credential = credential
        self._credential: Credential | None = None
        self._lock = threading.Lock()
        self._found: dict[tuple[str, str], str] = {}
        self._running: dict[tuple[str, str], concurrent.futures.Future[str]] = {}
        self._rounds: dict[str, PollRounds] = {}
        self._offered: dict[str, bool] = {}

    @property
    def credential(self) -> Credential:
        """The credential its clients use."""
        with self._lock:
            if self._credential is None:
                self._credential = self._get_credential()
            return self._credential

    def client(self, service: str) -> CloudClient:
        return self._pool.client(self.credential, service)

    def offers(self, service_type: str) -> bool:
        """Whether the credential's catalog lists an endpoint of ``service_type`` (in the
        configured region and interface, or an endpoint override); asked once per access."""
        with self._lock:
            known = self._offered.get(service_type)
        if known is None:
            # The catalog comes with the credential's token: Keystone's client reads it.
            known = self.client("keystone").call(
                lambda conn: conn.endpoint_for(service_type) is not None
            )
            with self._lock:
                self._offered[service_type] = known
        return known

    def find(self, kind: str, value: str) -> str:
        key = (kind, value)
        with self._lock:
            found = self._found.get(key)
            if found is not None:
                return found
            running = self._running.get(key)
            if running is None:
                self._running[key] = mine = concurrent.futures.Future[str]()
        if running is not None:
            # The resources of a traversal resolve their names at once: one asks the cloud,
            # the others wait for its answer.
            return running.result()
        try:
            service, lookup = lookup_of(kind)
            found = self.client(service).call(lambda conn: lookup(conn, value))
        except BaseException as error:
            # Failures are not kept: the thing may be made meanwhile (by this very stack).
            with self._lock:
                del self._running[key]
            mine.set_exception(error)
            raise
        with self._lock:
            self._found[key] = found
            del self._running[key]
        mine.set_result(found)
        return found

    def rounds(self, kind: str) -> PollRounds:
        """The rounds in which this access's waits on ``kind`` things (``nova.server``) are
        answered by one list call (see :mod:`thermik.clients.rounds`)."""
        with self._lock:
            found = self._rounds.get(kind)
            if found is None:
                service, listing = LISTINGS[kind]

                def list_many(tags: list[str]) -> Mapping[str, Any]:
                    return self.client(service).call(lambda conn: listing(conn, tags))

                found = self._rounds[kind] = PollRounds(list_many)
            return found


class CloudAccesses:
    """The engine's :class:`StackCloud` of each running traversal.

    ``stored_of(root_stack_id)`` reads what the stack tree stored when it was created (nested
    stacks act with their root's credential); ``source`` turns it into a credential.
    """

    def __init__(
        self,
        pool: ClientPool,
        source: CredentialSource,
        stored_of: Callable[[str], UserCreds | None],
    ) -> None:
        self.pool = pool
        self.source = source
        self._stored_of = stored_of
        self._lock = threading.Lock()
        self._accesses: collections.OrderedDict[tuple[str, str], StackCloud] = (
            collections.OrderedDict()
        )

    def for_traversal(self, root_id: str, traversal_id: str) -> StackCloud:
        """The access of a traversal of the stack tree rooted at ``root_id``."""
        key = (root_id, traversal_id)
        with self._lock:
            access = self._accesses.get(key)
            if access is None:
                access = StackCloud(self.pool, lambda: self.credential_of(root_id))
                self._accesses[key] = access
                while len(self._accesses) > _KEPT_TRAVERSALS:
                    self._accesses.popitem(last=False)
            else:
                self._accesses.move_to_end(key)
            return access

    def credential_of(self, root_id: str) -> Credential:
        """The credential the stack tree rooted at ``root_id`` acts with."""
        return self.source.of_stack(self._stored_of(root_id))

    def for_request(self, requester: Requester) -> StackCloud:
        """A fresh access acting as the caller of one request (its look-ups are its own)."""
        return StackCloud(self.pool, lambda: self.source.of_request(requester))


def constraint_validators(access: StackCloud) -> Mapping[str, Callable[[Any], str | None]]:
    """A validator per cloud custom constraint, each answering with ``access``'s look-ups,
    and the cloud-free ones (:mod:`thermik.resources.net_constraints`).

    A validator answers ``None`` for a value that names an existing thing, else the cloud's
    reason; the one of :data:`~thermik.resources.remote_stack.REMOTE_STACK_CHECK` takes the
    properties and request body of a remote ``OS::Heat::Stack`` and answers Heat's words for
    a region that cannot be reached or refuses the template. A cloud that cannot be reached
    fails validation with that reason too (Heat's behaviour): a stack whose images cannot be
    checked would fail later anyway.
    """

    def validator(kind: str) -> Callable[[Any], str | None]:
        def check(value: Any) -> str | None:
            if not isinstance(value, str) or not value:
                return None  # the schema's type check reports it
            try:
                access.find(kind, value)
            except CloudUnavailable as error:
                return f"the cloud could not check it: {error.message}"
            except CloudError as error:
                return error.message
            return None

        return check

    def remote_stack(value: Any) -> str | None:
        props, body = value
        return check_remote(access.client("heat"), props, body)

    return {
        **PURE_CONSTRAINTS,
        **{kind: validator(kind) for kind in LOOKUPS},
        REMOTE_STACK_CHECK: remote_stack,
    }
