"""Secrets at rest: Fernet with the configured key, and clear errors without it."""

from __future__ import annotations

import pytest

from thermik.errors import SecretKeyError
from thermik.persistence.crypto import METHOD, SecretBox


def test_round_trip_and_ciphertext_hides_the_value() -> None:
    box = SecretBox(SecretBox.generate_key())
    token = box.encrypt("pässwörd")
    assert "pässwörd" not in token
    assert box.decrypt(token, METHOD) == "pässwörd"


def test_same_value_encrypts_differently_each_time() -> None:
    box = SecretBox(SecretBox.generate_key())
    assert box.encrypt("x") != box.encrypt("x")


def test_wrong_key_names_the_secret() -> None:
    token = SecretBox(SecretBox.generate_key()).encrypt("x")
    with pytest.raises(
        SecretKeyError, match=r"^user_creds\.password: cannot decrypt .*not the key"
    ):
        SecretBox(SecretBox.generate_key()).decrypt(token, METHOD, "user_creds", "password")


def test_missing_key() -> None:
    with pytest.raises(
        SecretKeyError,
        match=r"^parameters\.db: cannot encrypt a secret: auth_encryption_key is not configured$",
    ):
        SecretBox(None).encrypt("x", "parameters", "db")
    with pytest.raises(SecretKeyError, match="cannot decrypt a secret"):
        SecretBox(None).decrypt("token", METHOD)


@pytest.mark.parametrize("key", ["", "short", "x" * 44])
def test_malformed_key(key: str) -> None:
    with pytest.raises(SecretKeyError, match="not a Fernet key"):
        SecretBox(key)


def test_unknown_decrypt_method() -> None:
    box = SecretBox(SecretBox.generate_key())
    with pytest.raises(SecretKeyError, match="unknown decrypt method 'rot13'"):
        box.decrypt(box.encrypt("x"), "rot13")


def test_one_write_seals_each_document_once() -> None:
    box = SecretBox(SecretBox.generate_key())
    write = box.for_one_write()
    first = write.seal({"size": 2, "name": "web"})
    assert write.seal({"size": 2, "name": "web"}) == first
    assert write.seal({"size": 3}) != first
    assert box.for_one_write().seal({"size": 2, "name": "web"}) != first
    assert box.unseal(first) == {"size": 2, "name": "web"}
    assert write.seal(None) is None


def test_without_a_key_one_write_keeps_documents_clear() -> None:
    box = SecretBox(None)
    assert box.for_one_write().seal({"size": 2}) == {"size": 2}
