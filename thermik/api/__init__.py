"""The Heat-v1-compatible REST API: a Falcon WSGI app over :mod:`thermik.api.boundary`."""
