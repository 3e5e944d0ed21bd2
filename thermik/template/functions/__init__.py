"""Intrinsic functions, one module per family; :mod:`thermik.template.versions` maps names."""
