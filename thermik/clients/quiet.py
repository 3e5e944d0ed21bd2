"""Keep the cloud's request and response bodies out of the logs.

keystoneauth logs every request (as a curl command with its body) and every response body at
DEBUG. Those bodies carry secrets: the private key Nova generates for a key pair, a server's
admin password, a user's password. A filter on keystoneauth's session loggers drops response
bodies and cuts request bodies from the curl line, so ``-v`` shows every call and its status
but no secret.
"""

from __future__ import annotations

import logging

#: keystoneauth's session loggers: one for everything, or one per part (``split_loggers``).
_LOGGERS = (
    "keystoneauth.session",
    "keystoneauth.session.request",
    "keystoneauth.session.body",
)
_DATA = " -d '"


class BodyFilter(logging.Filter):
    """Drops response bodies, and cuts a logged request at its body."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.endswith(".body"):
            return False
        message = record.getMessage()
        if message.startswith("RESP BODY:"):
            return False
        if message.startswith("REQ: curl") and _DATA in message:
            record.msg = message.split(_DATA, 1)[0] + " -d <body not logged>"
            record.args = None
        return True


def quiet_bodies() -> None:
    """Install :class:`BodyFilter` on keystoneauth's session loggers (once per process)."""
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, BodyFilter) for f in logger.filters):
            logger.addFilter(BodyFilter())
