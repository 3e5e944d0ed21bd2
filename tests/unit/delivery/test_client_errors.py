"""Every exception the Swift and Zaqar client stacks can raise becomes a DeliveryError."""

from __future__ import annotations

import contextlib
import inspect
import socket
from collections.abc import Callable
from types import ModuleType

import keystoneauth1.exceptions
import pytest
import requests.exceptions
import swiftclient.exceptions
import zaqarclient.errors
import zaqarclient.transport.errors

from thermik.conf.settings import SwiftSettings, ZaqarSettings
from thermik.delivery.base import ServerRef
from thermik.delivery.impl_swift import SwiftBackend, _choose_key, map_swift_errors
from thermik.delivery.impl_zaqar import ZaqarBackend, map_zaqar_errors, queue_name
from thermik.errors import (
    ConfigError,
    DeliveryError,
    DeliveryRejected,
    DeliveryTargetMissing,
    DeliveryUnavailable,
)

Mapper = Callable[[], contextlib.AbstractContextManager[None]]


def exception_classes(*modules: ModuleType) -> list[type[BaseException]]:
    found = {
        cls
        for module in modules
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, Exception) and not issubclass(cls, Warning)
    }
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


def instance_of(cls: type[BaseException]) -> BaseException:
    """An instance; classes whose constructors want more than a message get none run."""
    try:
        return cls("boom")
    except Exception:
        exc = cls.__new__(cls)
        BaseException.__init__(exc, "boom")
        return exc


TRANSPORT = (keystoneauth1.exceptions, requests.exceptions)
SWIFT = exception_classes(swiftclient.exceptions, *TRANSPORT)
ZAQAR = exception_classes(zaqarclient.errors, zaqarclient.transport.errors, *TRANSPORT)


def raises_mapped(mapper: Mapper, exc: BaseException) -> DeliveryError:
    with pytest.raises(DeliveryError) as info, mapper():
        raise exc
    assert info.value.__cause__ is exc
    return info.value


@pytest.mark.parametrize("cls", SWIFT, ids=lambda c: c.__qualname__)
def test_every_swift_client_exception_is_mapped(cls: type[BaseException]) -> None:
    raises_mapped(map_swift_errors, instance_of(cls))


@pytest.mark.parametrize("cls", ZAQAR, ids=lambda c: c.__qualname__)
def test_every_zaqar_client_exception_is_mapped(cls: type[BaseException]) -> None:
    raises_mapped(map_zaqar_errors, instance_of(cls))


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (swiftclient.exceptions.ClientException("x", http_status=404), DeliveryTargetMissing),
        (swiftclient.exceptions.ClientException("x", http_status=401), DeliveryRejected),
        (swiftclient.exceptions.ClientException("x", http_status=503), DeliveryUnavailable),
        (swiftclient.exceptions.ClientException("x", http_status=409), DeliveryUnavailable),
        (swiftclient.exceptions.ClientException("no status"), DeliveryRejected),
        (requests.exceptions.ConnectionError("refused"), DeliveryUnavailable),
        (TimeoutError("slow"), DeliveryUnavailable),
        (keystoneauth1.exceptions.Unauthorized(), DeliveryRejected),
        (keystoneauth1.exceptions.ServiceUnavailable(), DeliveryUnavailable),
        (keystoneauth1.exceptions.ConnectFailure(), DeliveryUnavailable),
        (keystoneauth1.exceptions.EndpointNotFound(), DeliveryRejected),
        (requests.exceptions.MissingSchema(), DeliveryRejected),
    ],
)
def test_swift_failures_map_to_precise_errors(
    exc: BaseException, expected: type[DeliveryError]
) -> None:
    assert type(raises_mapped(map_swift_errors, exc)) is expected


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (zaqarclient.transport.errors.ResourceNotFound(), DeliveryTargetMissing),
        (zaqarclient.transport.errors.ServiceUnavailableError(), DeliveryUnavailable),
        (zaqarclient.transport.errors.ForbiddenError(), DeliveryRejected),
        (zaqarclient.errors.UnsupportedVersion("v9"), DeliveryRejected),
    ],
)
def test_zaqar_failures_map_to_precise_errors(
    exc: BaseException, expected: type[DeliveryError]
) -> None:
    assert type(raises_mapped(map_zaqar_errors, exc)) is expected


def test_bugs_are_not_disguised_as_delivery_errors() -> None:
    with pytest.raises(KeyError), map_swift_errors():
        raise KeyError("bug")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_swift_that_is_not_there_is_unavailable() -> None:
    settings = SwiftSettings(
        auth_url=f"http://127.0.0.1:{closed_port()}/auth/v1.0",
        auth_version="1",
        username="test:tester",
        password="testing",
    )
    with SwiftBackend(settings, setup_attempts=1) as backend, pytest.raises(DeliveryUnavailable):
        backend.provision(ServerRef("srv"))


def test_zaqar_that_is_not_there_is_unavailable() -> None:
    backend = ZaqarBackend(ZaqarSettings(url=f"http://127.0.0.1:{closed_port()}"))
    with backend, pytest.raises(DeliveryUnavailable):
        backend.provision(ServerRef("srv"))


def test_missing_settings_name_the_option() -> None:
    with pytest.raises(ConfigError) as info:
        SwiftBackend(SwiftSettings(auth_url=None)).provision(ServerRef("s"))
    assert str(info.value) == "swift.auth_url: is required for the swift delivery backend"
    with pytest.raises(ConfigError) as info:
        ZaqarBackend(ZaqarSettings())
    assert str(info.value) == "zaqar.url: is required for the zaqar delivery backend"


@pytest.mark.parametrize(
    ("configured", "account", "expected"),
    [
        (None, {"x-account-meta-temp-url-key": "old"}, ("old", None)),
        ("mine", {}, ("mine", "x-account-meta-temp-url-key")),
        ("mine", {"x-account-meta-temp-url-key": "mine"}, ("mine", None)),
        ("mine", {"x-account-meta-temp-url-key-2": "mine"}, ("mine", None)),
        (
            "mine",
            {"x-account-meta-temp-url-key": "old"},
            ("mine", "x-account-meta-temp-url-key-2"),
        ),
    ],
)
def test_temp_url_key_never_clobbers_a_key_others_use(
    configured: str | None, account: dict[str, str], expected: tuple[str, str | None]
) -> None:
    assert _choose_key(configured, account) == expected


def test_new_account_key_is_random_and_set() -> None:
    key, header = _choose_key(None, {})
    assert len(key) == 32
    assert header == "x-account-meta-temp-url-key"


def test_queue_names_are_valid_zaqar_names() -> None:
    assert queue_name("thermik", "0b6c1f6e-2d5b-4ef0-8f2a-7c1b3e4d5f60") == (
        "thermik-0b6c1f6e-2d5b-4ef0-8f2a-7c1b3e4d5f60"
    )
    long = queue_name("thermik", "signal", "a" * 36, "b" * 36)
    assert len(long) <= 64
    assert queue_name("thermik", "with spaces/and slashes").startswith("thermik-")
