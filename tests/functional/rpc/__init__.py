"""Service mode's tests (RabbitMQ and PostgreSQL)."""

# Before any test module imports oslo.messaging directly: thermik.rpc imports it quietly
# (oslo.service's eventlet backend warns of deprecations on import, which fails the run).
import thermik.rpc  # noqa: F401
