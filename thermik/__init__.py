"""Thermik: an orchestration engine for OpenStack Heat templates, built on actors."""

__version__ = "0.1.0"
