"""The builtin backend's documents and signals kept in the database, so that any process
(every ``thermik-api`` worker, every engine) serves what any other wrote."""

from __future__ import annotations

from typing import Protocol

from thermik.delivery.impl_builtin import StoredObject


class _Stored(Protocol):
    @property
    def body(self) -> bytes: ...

    @property
    def generation(self) -> int: ...


class DeliveryObjectStore(Protocol):
    """What :class:`SharedObjects` needs of the Store (its delivery object methods)."""

    def put_delivery_object(self, key: str, body: bytes) -> int:
        """Store ``body`` at ``key``; the write's generation."""
        ...

    def get_delivery_object(self, key: str) -> _Stored | None:
        """What is stored at ``key``, or None."""
        ...

    def delete_delivery_object(self, key: str) -> None:
        """Remove ``key`` (no error if absent)."""
        ...


class SharedObjects:
    """A :class:`~thermik.delivery.impl_builtin.BuiltinObjectStore` over the Store."""

    def __init__(self, store: DeliveryObjectStore) -> None:
        self._store = store

    def put_object(self, key: str, body: bytes) -> int:
        return self._store.put_delivery_object(key, body)

    def get_object(self, key: str) -> StoredObject | None:
        found = self._store.get_delivery_object(key)
        return None if found is None else StoredObject(found.body, found.generation)

    def delete_object(self, key: str) -> None:
        self._store.delete_delivery_object(key)
