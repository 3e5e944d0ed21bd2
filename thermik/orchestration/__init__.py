"""The orchestration service: what a request needs around convergence (validation, views)."""
