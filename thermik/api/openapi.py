"""The OpenAPI description of the API (``openapi.yaml``, shipped with the package)."""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3 document, decoded."""
    text = resources.files("thermik.api").joinpath("openapi.yaml").read_text(encoding="utf-8")
    document = yaml.safe_load(text)
    assert isinstance(document, dict)
    return document
