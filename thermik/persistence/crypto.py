"""Secrets at rest: hidden parameters, redacted resource data and credentials.

Values are encrypted with Fernet (AES-128-CBC + HMAC-SHA256) under
``Settings.auth_encryption_key``. The key is only needed when a secret is written or read, so a
deployment without secrets runs without one; when it is needed and missing or wrong, the error
says so instead of storing plaintext or returning garbage.
"""

from __future__ import annotations

import binascii

from cryptography.fernet import Fernet, InvalidToken

from thermik.errors import PathElement, SecretKeyError

#: The ``decrypt_method`` recorded next to every encrypted value.
METHOD = "fernet"
#: Environment sections whose values of hidden parameters are encrypted.
SECRET_SECTIONS = ("parameters", "parameter_defaults")


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
        try:
            return self._key("decrypt", path).decrypt(token.encode()).decode()
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
