"""Every oslo.config option Thermik reads, by group.

Only the composition root registers these on a ``ConfigOpts`` and turns them into
:class:`thermik.conf.settings.Settings`; nothing below it reads configuration.
``list_opts`` feeds ``oslo-config-generator`` (entry point ``oslo.config.opts``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

DEFAULT_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "state_dir",
        help="Directory for the embedded SQLite database and local state. "
        "Defaults to $XDG_STATE_HOME/thermik (~/.local/state/thermik).",
    ),
    cfg.IntOpt(
        "max_template_size",
        default=524288,
        min=1,
        help="Maximum size in bytes of a template or environment document.",
    ),
    cfg.IntOpt(
        "max_function_value_size",
        min=1,
        help="Largest value (about its JSON size in bytes) an intrinsic function may build "
        "or return, e.g. a list_join, repeat or str_replace result. Defaults to "
        "max_template_size.",
    ),
    cfg.IntOpt(
        "max_function_depth",
        default=32,
        min=1,
        help="Deepest nesting of intrinsic function calls in one value.",
    ),
    cfg.IntOpt(
        "max_function_work",
        min=1,
        help="Work one evaluation of a template's functions may do (a resource's "
        "properties, an output, a whole validation): the sizes of the values functions "
        "return plus the characters and items they scan. Defaults to 32 times "
        "max_function_value_size.",
    ),
    cfg.IntOpt(
        "max_nested_stack_depth",
        default=5,
        min=1,
        help="Maximum depth of nested stacks (template resources, groups, OS::Heat::Stack).",
    ),
    cfg.IntOpt(
        "max_resources_per_stack",
        default=1000,
        help="Maximum resources in one stack including nested ones; -1 for no limit.",
    ),
    cfg.IntOpt(
        "max_json_body_size",
        default=1048576,
        min=1,
        help="Maximum size in bytes of a JSON request body.",
    ),
    cfg.IntOpt(
        "max_events_per_stack",
        default=1000,
        min=0,
        help="Events kept per stack; older ones are purged. 0 keeps all.",
    ),
    cfg.StrOpt(
        "auth_encryption_key",
        secret=True,
        help="Fernet key (urlsafe base64, 32 bytes) that encrypts at rest parameter values, "
        "resolved properties, attribute caches, events, software configs, deployment values "
        "and plugins' secrets. Generated under state_dir when unset on the embedded default; "
        "without one, a service stores these in clear and refuses every secret.",
    ),
]

DATABASE_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "connection",
        secret=True,
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/thermik or "
        "mysql+pymysql://user:pw@host/thermik. Defaults to SQLite under state_dir.",
    ),
    cfg.IntOpt("busy_timeout", default=30, min=0, help="SQLite busy timeout in seconds."),
    cfg.IntOpt(
        "pool_size",
        default=10,
        min=1,
        help="Connection pool size (server databases): under load each process opens up to "
        "twice this many connections, and keeps them open: keep (processes x 2 x pool_size) below "
        "the server's max_connections.",
    ),
    cfg.BoolOpt("echo", default=False, help="Log every SQL statement."),
]

ENGINE_OPTS: list[cfg.Opt] = [
    cfg.IntOpt(
        "max_concurrent_resources",
        default=64,
        min=1,
        help="Resource actions of one stack running at once.",
    ),
    cfg.IntOpt("executor_workers", default=32, min=1, help="Threads for slow plugin calls."),
    cfg.IntOpt(
        "action_retry_limit", default=5, min=0, help="Retries of a failed resource action."
    ),
    cfg.IntOpt(
        "default_stack_timeout",
        default=60,
        min=1,
        help="Stack operation timeout in minutes when the request gives none.",
    ),
    cfg.IntOpt(
        "cancel_grace_period",
        default=30,
        min=0,
        help="Seconds a cancelled resource action may take to stop before it is abandoned.",
    ),
    cfg.IntOpt(
        "lease_seconds",
        default=60,
        min=5,
        help="How long a stack lease lasts without renewal before another engine takes over.",
    ),
    cfg.IntOpt("heartbeat_interval", default=10, min=1, help="Seconds between engine heartbeats."),
    cfg.FloatOpt(
        "nested_poll_interval",
        default=10.0,
        min=0.1,
        help="Seconds between the safety-net polls of a running nested stack by its parent "
        "resource (the parent is woken when the child's operation ends; this only covers a "
        "child driven by another engine).",
    ),
    cfg.StrOpt(
        "cpu_affinity",
        default="one",
        regex=r"^\s*(one|any|\d+(\s*,\s*\d+)*)\s*$",
        help="CPUs the engine's threads run on: 'one' (the CPU the engine starts on; Python "
        "runs one thread at a time, and handing that turn between threads on different CPUs "
        "costs more than it gains), 'any' (the kernel places them), or CPU numbers separated "
        "by commas (several engines on one host: give each its own CPU).",
    ),
    cfg.BoolOpt(
        "local_daemon",
        default=True,
        help="Whether the thermik CLI hands its stacks to the engine daemon of the state "
        "directory (started on demand, it goes on when the command ends) rather than running "
        "an engine inside each command (which stops with it).",
    ),
    cfg.IntOpt(
        "local_daemon_idle_timeout",
        default=300,
        min=1,
        help="Seconds the local engine daemon stays up with nothing to do (no stack in "
        "progress, no builtin URL to serve, no command) before it exits.",
    ),
]

DELIVERY_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "backend",
        default="builtin",
        help="Metadata delivery backend (entry point group thermik.delivery): builtin, "
        "swift, zaqar or fakeswift.",
    ),
    cfg.StrOpt(
        "default_software_config_transport",
        default="POLL_TEMP_URL",
        choices=["POLL_TEMP_URL", "ZAQAR_MESSAGE", "POLL_SERVER_HEAT", "POLL_SERVER_CFN"],
        help="Transport for servers that do not choose one.",
    ),
    cfg.StrOpt(
        "default_deployment_signal_transport",
        default="TEMP_URL_SIGNAL",
        choices=["TEMP_URL_SIGNAL", "ZAQAR_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "CFN_SIGNAL"],
        help="Signal transport for deployments that do not choose one.",
    ),
    cfg.URIOpt(
        "public_url",
        help="Base URL at which agents reach the builtin delivery endpoints "
        "(e.g. http://192.0.2.10:8200). Defaults to the API's bind address.",
    ),
    cfg.IntOpt(
        "url_lifetime",
        default=86400 * 365,
        min=60,
        help="Seconds a signed metadata or signal URL stays valid.",
    ),
    cfg.IntOpt(
        "max_signal_size", default=1048576, min=1, help="Largest accepted signal body in bytes."
    ),
    cfg.IntOpt("write_retries", default=8, min=0, help="Retries of a failed metadata write."),
]

SWIFT_OPTS: list[cfg.Opt] = [
    cfg.StrOpt("auth_url", help="Auth URL: Keystone v3, or Swift tempauth (…/auth/v1.0)."),
    cfg.StrOpt("auth_version", default="3", choices=["1", "3"], help="1 for tempauth."),
    cfg.StrOpt("username", help="User (tempauth: account:user)."),
    cfg.StrOpt("password", secret=True, help="Password or tempauth key."),
    cfg.StrOpt("project_name", help="Keystone project."),
    cfg.StrOpt("user_domain_name", default="Default", help="Keystone user domain."),
    cfg.StrOpt("project_domain_name", default="Default", help="Keystone project domain."),
    cfg.StrOpt("temp_url_key", secret=True, help="Account TempURL key; generated when unset."),
    cfg.StrOpt("container_prefix", default="thermik", help="Prefix of metadata containers."),
]

ZAQAR_OPTS: list[cfg.Opt] = [
    cfg.URIOpt("url", help="Zaqar endpoint, e.g. http://127.0.0.1:8888."),
    cfg.StrOpt(
        "project_id", default="thermik", help="Project header when running without Keystone."
    ),
    cfg.IntOpt("message_ttl", default=3600, min=60, help="Seconds a metadata message lives."),
    cfg.IntOpt("queue_ttl", default=86400 * 14, min=60, help="Seconds an idle queue lives."),
]

API_OPTS: list[cfg.Opt] = [
    cfg.HostAddressOpt("bind_host", default="127.0.0.1", help="Address the API listens on."),
    cfg.PortOpt("bind_port", default=8204, help="Port the API listens on."),
    cfg.IntOpt(
        "threads",
        default=16,
        min=1,
        help="Requests thermik-api runs at once (its thread pool); more wait in a queue.",
    ),
    cfg.IntOpt(
        "workers",
        default=1,
        min=1,
        help="thermik-api processes serving the listening socket (pre-forked; the parent "
        "restarts a worker that dies and stops them all on SIGTERM). More than one needs "
        "[api] engine = rpc: each worker is engine-less.",
    ),
    cfg.IntOpt(
        "client_socket_timeout",
        default=60,
        min=1,
        help="Seconds a client connection may stay silent (a request half sent, or an idle "
        "keep-alive connection) before thermik-api closes it.",
    ),
    cfg.IntOpt(
        "max_connections",
        default=1000,
        min=1,
        help="Client connections thermik-api keeps open at once; more wait in the listen backlog.",
    ),
    cfg.StrOpt(
        "auth_strategy",
        default="noauth",
        choices=["noauth", "keystone"],
        help="keystone: keystonemiddleware auth_token; noauth: trust the tenant in the URL.",
    ),
    cfg.StrOpt(
        "static_token",
        secret=True,
        help="With noauth, require this X-Auth-Token on every request.",
    ),
    cfg.StrOpt(
        "engine",
        default="embedded",
        choices=[
            ("embedded", "thermik-api runs an engine of its own"),
            (
                "rpc",
                "service mode: no engine inside; every stack operation goes over "
                "[DEFAULT] transport_url to the thermik-engine processes",
            ),
        ],
        help="Where thermik-api's stack operations are carried out.",
    ),
]

RPC_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "topic",
        default="thermik-engine",
        help="The RPC topic the engines listen on (shared; each engine also listens on "
        "its own server queue, named by its engine id).",
    ),
    cfg.IntOpt(
        "call_timeout",
        default=30,
        min=1,
        help="Seconds thermik-api waits for an engine to answer a stack operation before "
        "it answers 503.",
    ),
]

CLOUD_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "cloud",
        help="Local mode: the cloud of openstacksdk's clouds.yaml that stacks are created on, "
        "with that cloud's credentials (thermik --os-cloud NAME sets it; 'envvars' means the "
        "OS_* environment variables). Unset: no cloud, unless a service's Keystone trusts "
        "are configured.",
    ),
    cfg.StrOpt(
        "cloud_config_file",
        help="The clouds.yaml that names the 'cloud'. Unset: where openstacksdk looks "
        "(OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml, "
        "/etc/openstack/clouds.yaml).",
    ),
    cfg.StrOpt(
        "region_name_for_services",
        help="Region of the cloud services Thermik calls. Default: the region of the "
        "credential (clouds.yaml), else the cloud's only one.",
    ),
    cfg.IntOpt(
        "client_retry_limit",
        default=2,
        min=0,
        help="Retries, with backoff, of a cloud call that may pass later: the service was "
        "unreachable, timed out, answered 5xx or 429, or 409 for the resource's state. "
        "0 disables them.",
    ),
]


IDENTITY_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "deferred_auth_method",
        default="trusts",
        choices=["trusts", "password"],
        help="How the engine acts for a stack's user after the request (a user's token "
        "expires): trusts, a Keystone trust from the user to the [trustee] service user, "
        "created with the stack and deleted with it. password (storing users' passwords) is "
        "not supported and refused at start-up.",
    ),
    cfg.ListOpt(
        "trusts_delegated_roles",
        default=[],
        help="Roles of the stack's user delegated to the Thermik service user in its "
        "trust. Empty: every role the user's token carries on the project.",
    ),
    cfg.StrOpt(
        "heat_stack_user_role",
        default="heat_stack_user",
        help="Keystone role given to the users Thermik creates for servers and wait "
        "condition handles (stack domain users), which may only signal and read their "
        "own resource's metadata.",
    ),
    cfg.StrOpt(
        "stack_user_domain_id",
        help="Id of the Keystone domain holding the stack users and their projects "
        "(thermik-manage keystone setup-domain prints it). Wins over stack_user_domain_name.",
    ),
    cfg.StrOpt(
        "stack_user_domain_name",
        help="Name of the Keystone domain holding the stack users, when "
        "stack_user_domain_id is unset.",
    ),
    cfg.StrOpt(
        "stack_domain_admin",
        help="Name of the user (in the stack user domain) that administers the domain's "
        "users and projects.",
    ),
    cfg.StrOpt(
        "stack_domain_admin_password",
        secret=True,
        help="Password of stack_domain_admin.",
    ),
    cfg.StrOpt(
        "region_name_for_agents",
        help="Region in which the agents inside servers (as their stack domain users) find "
        "Thermik (orchestration, POLL_SERVER_HEAT and HEAT_SIGNAL) and Zaqar (messaging, "
        "ZAQAR_MESSAGE) in Keystone's catalog. Unset: region_name_for_services; unset too, "
        "the agents take the catalog's only endpoint.",
    ),
]

#: keystoneauth's plugin of the Thermik service user: a password, which trusts can scope.
TRUSTEE_AUTH_TYPE = "password"


def trustee_opts() -> list[cfg.Opt]:
    """``[trustee]``: keystoneauth's options of the service user the users' trusts delegate
    to (auth_type = password, auth_url, username, password, user_domain_name ...)."""
    plugin = copy.deepcopy(ks_loading.get_auth_plugin_conf_options(TRUSTEE_AUTH_TYPE))
    for opt in plugin:
        # keystoneauth requires auth_url; a service without [trustee] (local mode, noauth)
        # must start all the same.
        opt.required = False
    common = [o for o in ks_loading.get_auth_common_conf_options() if o.dest == "auth_type"]
    return [*common, *plugin]


def client_opts(service: str | None = None) -> list[cfg.Opt]:
    """The options of ``[clients]``, or of ``[clients_<service>]`` when ``service`` is given,
    where an unset option falls back to ``[clients]`` (as in Heat)."""
    inherit = " Unset: the value in [clients]." if service else ""
    return [
        cfg.StrOpt(
            "endpoint_type",
            default=None if service else "publicURL",
            choices=["publicURL", "internalURL", "adminURL", "public", "internal", "admin"],
            help="Which catalog endpoint of the service to use." + inherit,
        ),
        cfg.StrOpt(
            "ca_file", help="CA bundle that verifies the service's TLS certificate." + inherit
        ),
        cfg.StrOpt("cert_file", help="Client certificate for TLS." + inherit),
        cfg.StrOpt("key_file", help="Private key of the client certificate." + inherit),
        cfg.BoolOpt(
            "insecure",
            default=None if service else False,
            help="Do not verify the service's TLS certificate." + inherit,
        ),
        cfg.IntOpt(
            "timeout",
            default=None if service else 60,
            min=1,
            help="Seconds to wait for the service's answer to one request." + inherit,
        ),
        *(_KEYSTONE_CLIENT_OPTS if service == "keystone" else []),
    ]


_KEYSTONE_CLIENT_OPTS: list[cfg.Opt] = [
    cfg.URIOpt(
        "auth_uri",
        schemes=["http", "https"],
        help="Keystone's URL (e.g. http://192.0.2.10:5000/v3; unversioned: /v3 is "
        "appended) the engine authenticates trusts and stack users against. Unset: "
        "[keystone_authtoken] www_authenticate_uri.",
    ),
]


#: The services whose client has a [clients_<name>] group, by the names Heat gives them.
CLIENT_SERVICES = ("keystone", "nova", "neutron", "glance", "cinder")

GROUPS: dict[str | None, list[cfg.Opt]] = {
    None: [*DEFAULT_OPTS, *CLOUD_OPTS, *IDENTITY_OPTS],
    "database": DATABASE_OPTS,
    "engine": ENGINE_OPTS,
    "delivery": DELIVERY_OPTS,
    "swift": SWIFT_OPTS,
    "zaqar": ZAQAR_OPTS,
    "api": API_OPTS,
    "rpc": RPC_OPTS,
    "clients": client_opts(),
    **{f"clients_{service}": client_opts(service) for service in CLIENT_SERVICES},
    "trustee": trustee_opts(),
}


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register every Thermik option on ``conf`` (idempotent)."""
    for group, opts in GROUPS.items():
        conf.register_opts(opts, group=group)


def list_opts() -> list[tuple[str | None, Sequence[cfg.Opt]]]:
    """The options by group, for ``oslo-config-generator``."""
    return [(group, list(opts)) for group, opts in GROUPS.items()]
