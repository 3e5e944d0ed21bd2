"""Backends are found by entry point name; an unknown name is a configuration error."""

from __future__ import annotations

import pytest

from thermik.delivery import loader
from thermik.errors import ConfigError


def test_every_shipped_backend_is_registered() -> None:
    assert {"builtin", "fakeswift", "swift", "zaqar"} <= set(loader.available_backends())


def test_unknown_backend_names_the_option_and_the_choices() -> None:
    with pytest.raises(ConfigError) as info:
        loader.load_backend("carrier-pigeon")
    text = str(info.value)
    assert text.startswith("delivery.backend: unknown delivery backend 'carrier-pigeon'")
    assert "fakeswift" in text
