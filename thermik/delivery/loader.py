"""Find delivery backends by name through the ``thermik.delivery`` entry point group."""

from __future__ import annotations

from importlib import metadata

from thermik.conf.settings import Settings
from thermik.delivery.base import DeliveryBackend
from thermik.errors import ConfigError

GROUP = "thermik.delivery"


def available_backends() -> list[str]:
    """The names of every installed backend, sorted."""
    return sorted({ep.name for ep in metadata.entry_points(group=GROUP)})


def load_backend(name: str) -> type[DeliveryBackend]:
    """The backend class registered as ``name``.

    Raises:
        ConfigError: no backend of that name is installed, or its entry point is not a backend.
    """
    matches = [ep for ep in metadata.entry_points(group=GROUP) if ep.name == name]
    if not matches:
        known = ", ".join(available_backends()) or "none"
        raise ConfigError(
            f"unknown delivery backend {name!r}; installed: {known}", path=("delivery", "backend")
        )
    loaded = matches[0].load()
    if not (isinstance(loaded, type) and issubclass(loaded, DeliveryBackend)):
        raise ConfigError(
            f"entry point {name!r} of {GROUP} is not a DeliveryBackend: {loaded!r}",
            path=("delivery", "backend"),
        )
    return loaded


def create_backend(name: str, settings: Settings) -> DeliveryBackend:
    """Load the backend ``name`` and build it from ``settings``."""
    return load_backend(name).from_settings(settings)
