"""Heat's v1 REST API, one module per collection; each declares its routes in ``routes()``."""
