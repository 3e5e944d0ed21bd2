"""The Store contract, delivery objects: the builtin delivery's documents and signals shared
by every process through the database. Runs on every backend."""

from __future__ import annotations

import threading

import pytest

from tests.contract.conftest import KEY
from thermik.errors import InvalidInput, SecretKeyError
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.sql.store import SqlStore

PATH = "/delivery/v1/metadata/" + "a" * 40


def test_round_trip_and_generations(store: SqlStore) -> None:
    assert store.get_delivery_object(PATH) is None
    assert store.put_delivery_object(PATH, b'{"one": 1}') == 1
    assert store.put_delivery_object(PATH, b'{"two": 2}') == 2
    found = store.get_delivery_object(PATH)
    assert found is not None
    assert (found.body, found.generation) == (b'{"two": 2}', 2)
    assert store.put_delivery_object(PATH + "b", b"{}") == 1


def test_bodies_keep_every_byte_and_large_ones_fit(store: SqlStore) -> None:
    body = bytes(range(256)) * 4096  # 1 MiB: past MySQL's plain BLOB
    store.put_delivery_object(PATH, body)
    found = store.get_delivery_object(PATH)
    assert found is not None
    assert found.body == body


def test_delete_is_idempotent(store: SqlStore) -> None:
    store.put_delivery_object(PATH, b"{}")
    store.delete_delivery_object(PATH)
    store.delete_delivery_object(PATH)
    assert store.get_delivery_object(PATH) is None
    assert store.put_delivery_object(PATH, b"{}") == 1


def test_bodies_are_encrypted_at_rest(store: SqlStore, database: Database) -> None:
    store.put_delivery_object(PATH, b'{"password": "hunter2"}')
    raw = database.read(
        lambda conn: conn.exec_driver_sql("SELECT body FROM delivery_object").scalar_one()
    )
    assert b"hunter2" not in bytes(raw)
    other = SqlStore(database, SecretBox(SecretBox.generate_key()))
    with pytest.raises(SecretKeyError, match="not the key"):
        other.get_delivery_object(PATH)
    assert SqlStore(database, SecretBox(KEY)).get_delivery_object(PATH) is not None


def test_an_over_long_key_is_refused(store: SqlStore) -> None:
    with pytest.raises(InvalidInput, match="255"):
        store.put_delivery_object("/" + "k" * 300, b"{}")


def test_concurrent_writers_get_distinct_generations(store: SqlStore) -> None:
    got: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(4)

    def write() -> None:
        start.wait()
        for _ in range(5):
            generation = store.put_delivery_object(PATH, b"{}")
            with lock:
                got.append(generation)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(got) == list(range(1, 21))
