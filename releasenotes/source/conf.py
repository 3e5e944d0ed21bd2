"""Sphinx configuration of the release notes (``tox -e releasenotes``): reno's notes, by release."""

project = "Thermik release notes"
copyright = "Thermik developers"
extensions = ["reno.sphinxext"]
html_theme = "alabaster"
exclude_patterns = ["_build"]
