"""The pool's connections: one per credential, the least recently used let go beyond a bound."""

from __future__ import annotations

from thermik.clients import ClientPool, Credential
from thermik.conf.settings import ClientSettings


def token(value: str) -> Credential:
    return Credential.from_auth(
        "v3token", auth_url="http://keystone.test:5000/v3", token=value, project_id="p1"
    )


def test_connections_are_shared_and_the_least_recently_used_let_go() -> None:
    pool = ClientPool(ClientSettings(), kept=2)
    try:
        first = pool.connection(token("a"))
        assert pool.connection(token("a")) is first
        second = pool.connection(token("b"))
        pool.connection(token("a"))  # used again: "b" is now the oldest
        pool.connection(token("c"))
        assert pool.connection(token("a")) is first
        assert pool.connection(token("b")) is not second
    finally:
        pool.close()


def test_a_discarded_credential_gets_a_new_connection() -> None:
    pool = ClientPool(ClientSettings())
    try:
        first = pool.connection(token("a"))
        pool.discard(token("a"))
        assert pool.connection(token("a")) is not first
    finally:
        pool.close()
