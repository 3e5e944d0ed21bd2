"""Glance's resource types: images imported from a URL."""
