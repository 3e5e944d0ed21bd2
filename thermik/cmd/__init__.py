"""Console scripts: the only code besides :mod:`thermik.service` that reads configuration."""
