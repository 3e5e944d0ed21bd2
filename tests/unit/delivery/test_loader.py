"""Backends are found by entry point name; an unknown name is a configuration error."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermik.conf.settings import Settings
from thermik.delivery import loader
from thermik.delivery.base import DeliveryBackend
from thermik.errors import ConfigError


def test_every_shipped_backend_is_registered() -> None:
    assert {"builtin", "fakeswift", "swift", "zaqar"} <= set(loader.available_backends())


def test_unknown_backend_names_the_option_and_the_choices() -> None:
    with pytest.raises(ConfigError) as info:
        loader.load_backend("carrier-pigeon")
    text = str(info.value)
    assert text.startswith("delivery.backend: unknown delivery backend 'carrier-pigeon'")
    assert "fakeswift" in text


@pytest.mark.parametrize("name", ["builtin", "fakeswift"])
def test_local_backends_build_from_the_embedded_settings(name: str, tmp_path: Path) -> None:
    with loader.create_backend(name, Settings.embedded(tmp_path)) as backend:
        assert backend.name == name
        assert isinstance(backend, DeliveryBackend)


def test_remote_backends_name_their_missing_settings(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^zaqar\.url: is required"):
        loader.create_backend("zaqar", Settings.embedded(tmp_path))
