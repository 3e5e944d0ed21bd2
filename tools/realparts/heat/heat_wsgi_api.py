"""heat-api's WSGI application with tools/heat-up.sh's configuration.

``heat.wsgi.api`` parses ``sys.argv`` for its configuration and otherwise looks only in ~/.heat
and /etc: uWSGI loads this module instead, which names the file (``HEAT_CONFIG_FILE``) and the log
(``HEAT_LOG_FILE``: under uWSGI oslo.log would name it after an importlib frame) first.
"""

import os
import sys

sys.argv = [
    sys.argv[0] if sys.argv else "heat-api",
    "--config-file",
    os.environ["HEAT_CONFIG_FILE"],
    "--log-file",
    os.environ["HEAT_LOG_FILE"],
]

from heat.wsgi.api import application  # noqa: E402

__all__ = ["application"]
