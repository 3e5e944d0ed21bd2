"""The SQLAlchemy implementation of the Store, one module per concern."""
