"""Templates shipped with Thermik for ``thermik demo``."""
