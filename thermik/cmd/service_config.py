"""Configuration and logging of the service commands: thermik-api, thermik-engine, thermik-manage.

They read configuration as every OpenStack service does: oslo.config's default discovery
(``~/.thermik/thermik.conf``, ``~/thermik.conf``, ``/etc/thermik/thermik.conf``,
``/etc/thermik.conf``, then ``thermik.conf.d`` directories beside them) unless
``--config-file`` or ``--config-dir`` says otherwise, and they log through oslo.log
(``--log-file``, ``--debug``, ``[DEFAULT] log_file``, ``default_log_levels``...). Without a
log file they go to standard error, so that what a command prints on standard output stays
parseable.
"""

from __future__ import annotations

from collections.abc import Sequence

from oslo_config import cfg
from oslo_log import log

from thermik.cmd import helptext
from thermik.conf import opts

PROJECT = "thermik"
#: Loggers quieter than the rest: Alembic says which DDL mode it uses on every start.
QUIET_LOGGERS = ("alembic=WARN",)


def parse(
    prog: str, description: str, argv: Sequence[str], cli_opts: Sequence[cfg.Opt] = ()
) -> cfg.ConfigOpts:
    """A fresh ``ConfigOpts`` with Thermik's and oslo.log's options, parsed from ``argv``
    and the configuration files found as described above.

    Raises:
        cfg.Error: a named configuration file is missing, or a value is invalid.
    """
    log.set_defaults(default_log_levels=[*log.get_default_log_levels(), *QUIET_LOGGERS])
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    log.register_options(conf)
    conf.register_cli_opts(list(cli_opts))
    conf(
        args=list(argv),
        project=PROJECT,
        prog=prog,
        description=helptext.plain(description),
        default_config_files=None,
        default_config_dirs=None,
    )
    return conf


def setup_logging(conf: cfg.ConfigOpts) -> None:
    """Configure Python logging as ``conf`` says (oslo.log)."""
    if not (conf.log_file or conf.log_dir):
        # oslo.log's fallback is standard output, which thermik-manage prints its results on.
        conf.set_default("use_stderr", True)
    log.setup(conf, PROJECT)
