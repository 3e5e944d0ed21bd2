"""Reading a template and its environment files from disk the way python-heatclient does.

The template layer is pure: it gets a files map. This module builds that map as the
``openstack stack create`` client does: every ``get_file`` value and every ``type`` naming a
``.yaml``/``.template`` file is read relative to the file that mentions it, stored under its
absolute ``file://`` URL, and the reference is rewritten to that URL; nested templates are
processed the same way (and stored as JSON); environment ``resource_registry`` entries that
name files (no ``::`` in the value) are resolved against the environment file, or its
``base_url``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

from thermik.errors import EnvironmentError_, TemplateError, ThermikError
from thermik.template.environment import parse_environment
from thermik.template.loader import load_document
from thermik.template.registry import is_template_name
from thermik.template.versions import VERSION_KEYS


@dataclasses.dataclass(frozen=True)
class TemplateInput:
    """A template with everything it needs, ready for the template layer."""

    template: dict[str, Any]
    files: dict[str, str]
    environments: list[dict[str, Any]]
    environment_names: list[str]


def to_url(path: str) -> str:
    """A path or URL as the absolute URL heatclient uses as a files-map key."""
    if urlparse(path).scheme:
        return path
    return Path(path).resolve().as_uri()


def base_url(url: str) -> str:
    """The directory URL of ``url`` (with a trailing slash)."""
    parsed = urlparse(url)
    return urljoin(url, str(Path(parsed.path).parent)) + "/"


def read_url(url: str) -> str:
    """Text of a ``file://`` URL; any other scheme is refused with a clear error."""
    parsed = urlparse(url)
    if parsed.scheme != "file":
        raise TemplateError(f"cannot read {url}: only local files are supported")
    try:
        return Path(url2pathname(parsed.path)).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"cannot read {url}: {exc}") from None


def _named(path: str, load: Callable[[str], dict[str, Any]], text: str) -> dict[str, Any]:
    try:
        return load(text)
    except ThermikError as exc:
        exc.message = f"{path}: {exc.message}"
        exc.args = (str(exc),)
        raise


def _is_template(text: str) -> bool:
    try:
        document = load_document(text)
    except ThermikError:
        return False
    return any(key in document for key in VERSION_KEYS)


class FileGatherer:
    """Collects files for one template and its environments into :attr:`files`."""

    def __init__(self, read: Callable[[str], str] = read_url) -> None:
        self.read = read
        self.files: dict[str, str] = {}

    def template(self, path: str) -> dict[str, Any]:
        """Load the template at ``path`` and gather everything it references."""
        url = to_url(path)
        document = _named(path, load_document, self.read(url))
        if not any(key in document for key in VERSION_KEYS):
            raise TemplateError(f"{path}: Template format version not found.")
        self._walk_template(document, base_url(url))
        return document

    def _walk_template(self, data: Any, base: str) -> None:
        if isinstance(data, dict):
            for key, value in list(data.items()):
                wanted = isinstance(value, str) and (
                    key == "get_file" or (key == "type" and is_template_name(value))
                )
                if wanted:
                    data[key] = self._fetch(urljoin(base, value))
                else:
                    self._walk_template(value, base)
        elif isinstance(data, list):
            for item in data:
                self._walk_template(item, base)

    def _fetch(self, url: str) -> str:
        if url not in self.files:
            text = self.read(url)
            if _is_template(text):
                self.files[url] = ""  # guards against templates that include each other
                nested = load_document(text)
                self._walk_template(nested, base_url(url))
                text = json.dumps(nested)
            self.files[url] = text
        return url

    def environment(self, path: str) -> dict[str, Any]:
        """Load an environment file and gather the templates its registry names."""
        url = to_url(path)
        document = _named(path, parse_environment, self.read(url))
        registry = document.get("resource_registry")
        if isinstance(registry, dict):
            base = str(registry.get("base_url", base_url(url)))
            self._walk_registry(registry, base)
            for entry in (registry.get("resources") or {}).values():
                if isinstance(entry, dict):
                    self._walk_registry(entry, str(entry.get("base_url", base)))
        return document

    def _walk_registry(self, registry: dict[str, Any], base: str) -> None:
        for key, value in list(registry.items()):
            if key in ("base_url", "hooks", "restricted_actions"):
                continue
            if isinstance(value, str) and "::" not in value:
                registry[key] = self._fetch(urljoin(base, value))


def gather(template_path: str, environment_paths: list[str]) -> TemplateInput:
    """Read a template and environment files, building the files map."""
    gatherer = FileGatherer()
    template = gatherer.template(template_path)
    environments = [gatherer.environment(p) for p in environment_paths]
    return TemplateInput(template, gatherer.files, environments, list(environment_paths))


def parse_parameters(pairs: list[str]) -> dict[str, Any]:
    """``--parameter key=value`` options as heatclient reads them.

    A single option may hold several ``;``-separated pairs; a key given twice becomes a list.
    """
    if len(pairs) == 1:
        pairs = pairs[0].split(";")
    found: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise EnvironmentError_(f"Malformed parameter({pair}). Use the key=value format.")
        if name not in found:
            found[name] = value
        elif isinstance(found[name], list):
            found[name].append(value)
        else:
            found[name] = [found[name], value]
    return found
