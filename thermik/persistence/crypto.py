"""Secrets at rest: hidden parameters, redacted resource data, credentials, and every document
that may hold a value derived from them.

Values are encrypted with Fernet (AES-128-CBC + HMAC-SHA256) under
``Settings.auth_encryption_key``. The key is only needed when a secret is written or read, so a
deployment without secrets runs without one; when it is needed and missing or wrong, the error
says so instead of storing plaintext or returning garbage.

Everything stored that is computed from a template's values (parameter values, resolved
properties, cached attributes, join payloads, event properties, resource data, snapshot data,
traversal records, software configs, deployment input and output values) is *sealed* whenever a
key is configured, whatever it holds: a value derived from a hidden parameter or a generated
secret then needs no tracking to stay encrypted. Without a key they stay in clear, which is safe
because every source of a secret needs the key first (a hidden parameter is encrypted with its
template, a plugin's secret goes into the redacted resource data or is refused, see
:meth:`SecretBox.require`).
"""

from __future__ import annotations

import binascii
import json
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from thermik.errors import PathElement, SecretKeyError

#: The ``decrypt_method`` recorded next to every encrypted value.
METHOD = "fernet"
#: Environment sections whose parameter values are encrypted.
SECRET_SECTIONS = ("parameters", "parameter_defaults")
#: Compact JSON text of a sealed document (one encoder instead of one per call).
_COMPACT = json.JSONEncoder(separators=(",", ":")).encode


class SecretBox:
    """Encrypts and decrypts text with the configured key (``None`` when none is configured)."""

    def __init__(self, key: str | None) -> None:
        self._fernet: Fernet | None = None
        if key is not None:
            try:
                self._fernet = Fernet(key.encode())
            except (ValueError, binascii.Error) as error:
                raise SecretKeyError(
                    f"auth_encryption_key is not a Fernet key (32 bytes, urlsafe base64): {error}"
                ) from None

    @property
    def sealing(self) -> bool:
        """Whether documents are sealed (a key is configured)."""
        return self._fernet is not None

    def require(self, *path: PathElement) -> None:
        """Refuse the secret at ``path`` (``SecretKeyError``) when no key is configured."""
        self._key("store", path)

    @staticmethod
    def generate_key() -> str:
        """A fresh random key in the form ``auth_encryption_key`` expects."""
        return Fernet.generate_key().decode()

    def encrypt(self, plaintext: str, *path: PathElement) -> str:
        """Encrypt ``plaintext``; ``path`` names the secret in the error when there is no key."""
        return self._key("encrypt", path).encrypt(plaintext.encode()).decode()

    def decrypt(self, token: str, method: str | None, *path: PathElement) -> str:
        """Decrypt a value stored by :meth:`encrypt` with ``decrypt_method`` ``method``."""
        if method != METHOD:
            raise SecretKeyError(f"unknown decrypt method {method!r}", path=path)
        return self.unseal_bytes(token.encode(), *path).decode()

    def seal(self, document: Any) -> Any:
        """``document`` (a mapping, a list or ``None``) as stored: sealed into a token when a
        key is configured. A sealed document is a JSON string where a clear one never is, so
        rows stored in clear by older versions read back as they are."""
        if document is None or self._fernet is None:
            return document
        return self._fernet.encrypt(_COMPACT(document).encode()).decode()

    def for_one_write(self) -> SecretBox:
        """This box, sealing each document once for the rows of one write: an action's two
        events show the same properties, each sealed apart before. The rows then share one
        token, which tells a reader of the database only that they hold the same document,
        as their schema says; a box kept beyond one write would tell it of unrelated rows."""
        return _SealingOnce(self._fernet) if self._fernet is not None else self

    def unseal(self, stored: Any, *path: PathElement) -> Any:
        """The document :meth:`seal` stored as ``stored``."""
        if type(stored) is not str:
            return stored
        return json.loads(self.decrypt(stored, METHOD, *path))

    def seal_bytes(self, body: bytes) -> bytes:
        """``body`` encrypted (a key must be configured: see :attr:`sealing`)."""
        return self._key("encrypt", ()).encrypt(body)

    def unseal_bytes(self, stored: bytes, *path: PathElement) -> bytes:
        """The bytes :meth:`seal_bytes` encrypted as ``stored``."""
        try:
            return self._key("decrypt", path).decrypt(stored)
        except InvalidToken:
            raise SecretKeyError(
                "cannot decrypt a stored secret: auth_encryption_key is not the key it was "
                "encrypted with",
                path=path,
            ) from None

    def _key(self, verb: str, path: tuple[PathElement, ...]) -> Fernet:
        if self._fernet is None:
            raise SecretKeyError(
                f"cannot {verb} a secret: auth_encryption_key is not configured", path=path
            )
        return self._fernet


class _SealingOnce(SecretBox):
    """A :class:`SecretBox` that seals each document text once."""

    def __init__(self, fernet: Fernet) -> None:
        self._fernet = self._sealing_with = fernet
        self._sealed: dict[str, str] = {}

    def seal(self, document: Any) -> Any:
        if document is None:
            return None
        text = _COMPACT(document)
        token = self._sealed.get(text)
        if token is None:
            token = self._sealed[text] = self._sealing_with.encrypt(text.encode()).decode()
        return token
