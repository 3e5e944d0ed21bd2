"""Sphinx configuration of Thermik's documentation (``tox -e docs``, ``tools/build-docs.sh``)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))

import thermik  # noqa: E402 - the path above makes the checkout's package importable

project = "Thermik"
copyright = "Thermik developers"
author = "Thermik developers"
release = thermik.__version__
version = release

extensions = [
    "sphinx.ext.graphviz",
    "cliff.sphinxext",
    "oslo_config.sphinxext",
    "oslo_policy.sphinxext",
    "thermik_reference",
]

# The theme: Sphinx's own (alabaster), so the docs need nothing beyond Sphinx itself.
html_theme = "alabaster"
html_static_path: list[str] = []
html_title = f"Thermik {release}"
exclude_patterns = ["_build", "man/_common_options.rst"]
graphviz_output_format = "svg"

# cliff's autoprogram-cliff: the ``thermik`` command's name in usage lines.
autoprogram_cliff_application = "thermik"

# Manual pages (``sphinx-build -b man``): source, name, description, authors, section.
man_pages = [
    ("man/thermik", "thermik", "run OpenStack Heat templates locally", [author], 1),
    ("man/thermik-api", "thermik-api", "serve the Heat v1 compatible REST API", [author], 1),
    ("man/thermik-engine", "thermik-engine", "run a Thermik convergence engine", [author], 1),
    ("man/thermik-manage", "thermik-manage", "Thermik database maintenance", [author], 1),
]
man_show_urls = False
