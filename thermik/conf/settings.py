"""The typed, frozen view of configuration that everything below the composition root receives.

oslo.config hands option values back as ``Any``; converting them once here keeps the rest of
Thermik typed and free of ``cfg.CONF``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from thermik.conf import opts
from thermik.errors import ConfigError
from thermik.template.budget import DEFAULT_MAX_DEPTH, Budget


def default_state_dir() -> Path:
    """Where the embedded default keeps its database: ``$XDG_STATE_HOME/thermik``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "thermik"


@dataclasses.dataclass(frozen=True, slots=True)
class DatabaseSettings:
    """Where state lives: a SQLAlchemy URL plus connection tuning."""

    connection: str
    busy_timeout: int = 30
    pool_size: int = 10
    echo: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class LimitSettings:
    """Size limits applied to user input."""

    max_template_size: int = 524288
    max_nested_stack_depth: int = 5
    max_resources_per_stack: int = 1000
    max_json_body_size: int = 1048576
    max_events_per_stack: int = 1000
    #: Largest value a template function may build; ``None``: ``max_template_size``.
    max_function_value_size: int | None = None
    max_function_depth: int = DEFAULT_MAX_DEPTH
    #: Work of one evaluation; ``None``: 32 times the value limit.
    max_function_work: int | None = None

    def function_budget(self) -> Budget:
        """The budget every evaluation of template functions runs under."""
        size = self.max_function_value_size or self.max_template_size
        return Budget.scaled(
            size, max_depth=self.max_function_depth, max_work=self.max_function_work
        )


@dataclasses.dataclass(frozen=True, slots=True)
class EngineSettings:
    """Convergence engine tuning."""

    max_concurrent_resources: int = 64
    executor_workers: int = 32
    action_retry_limit: int = 5
    default_stack_timeout: int = 60
    cancel_grace_period: int = 30
    lease_seconds: int = 60
    heartbeat_interval: int = 10
    nested_poll_interval: float = 10.0
    cpu_affinity: str = "one"
    local_daemon: bool = True
    local_daemon_idle_timeout: int = 300


@dataclasses.dataclass(frozen=True, slots=True)
class DeliverySettings:
    """Software deployment metadata delivery."""

    backend: str = "builtin"
    default_software_config_transport: str = "POLL_TEMP_URL"
    default_deployment_signal_transport: str = "TEMP_URL_SIGNAL"
    public_url: str | None = None
    url_lifetime: int = 86400 * 365
    max_signal_size: int = 1048576
    write_retries: int = 8


@dataclasses.dataclass(frozen=True, slots=True)
class SwiftSettings:
    """How to reach Swift for POLL_TEMP_URL delivery."""

    auth_url: str | None = None
    auth_version: str = "3"
    username: str | None = None
    password: str | None = None
    project_name: str | None = None
    user_domain_name: str = "Default"
    project_domain_name: str = "Default"
    temp_url_key: str | None = None
    container_prefix: str = "thermik"


@dataclasses.dataclass(frozen=True, slots=True)
class ZaqarSettings:
    """How to reach Zaqar for ZAQAR_MESSAGE delivery."""

    url: str | None = None
    project_id: str = "thermik"
    message_ttl: int = 3600
    queue_ttl: int = 86400 * 14


@dataclasses.dataclass(frozen=True, slots=True)
class ApiSettings:
    """The REST API listener and its authentication."""

    bind_host: str = "127.0.0.1"
    bind_port: int = 8204
    threads: int = 16
    #: Processes serving the socket (more than one only in service mode).
    workers: int = 1
    client_socket_timeout: int = 60
    max_connections: int = 1000
    auth_strategy: str = "noauth"
    static_token: str | None = None
    #: ``embedded`` (an engine inside) or ``rpc`` (service mode: the engines over RPC).
    engine: str = "embedded"


@dataclasses.dataclass(frozen=True, slots=True)
class RpcSettings:
    """Service mode's messaging between thermik-api and the engines (``[rpc]``)."""

    topic: str = "thermik-engine"
    call_timeout: int = 30


@dataclasses.dataclass(frozen=True, slots=True)
class ClientOptions:
    """How the client of one service reaches it: ``[clients]``, or ``[clients_<service>]``
    whose unset (``None``) options fall back to ``[clients]``."""

    endpoint_type: str | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    insecure: bool | None = None
    timeout: int | None = None

    def over(self, base: ClientOptions) -> ClientOptions:
        """These options, with each unset one taken from ``base``."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return dataclasses.replace(base, **{k: v for k, v in values.items() if v is not None})


#: The ``cloud`` that means "the OS_* environment variables" (openstacksdk's name for it).
ENVIRONMENT_CLOUD = "envvars"


@dataclasses.dataclass(frozen=True, slots=True)
class ClientSettings:
    """The cloud client layer: region, retries, and TLS and endpoints per service."""

    region_name: str | None = None
    retry_limit: int = 2
    #: Local mode: the clouds.yaml cloud stacks act as (``envvars``: the OS_* variables).
    cloud: str | None = None
    cloud_config_file: str | None = None
    defaults: ClientOptions = ClientOptions(endpoint_type="publicURL", insecure=False, timeout=60)
    #: By the service's Heat name (nova, neutron, ...); see ``opts.CLIENT_SERVICES``.
    services: Mapping[str, ClientOptions] = dataclasses.field(default_factory=dict)

    def for_service(self, name: str) -> ClientOptions:
        """The options of service ``name`` (a Heat name) with ``[clients]`` under them."""
        return self.services.get(name, ClientOptions()).over(self.defaults)


@dataclasses.dataclass(frozen=True, slots=True)
class TrusteeSettings:
    """The Thermik service user that users' trusts delegate to (``[trustee]``).

    ``options`` are keystoneauth's options of ``auth_type`` that are set, by name
    (``auth_url``, ``username``, ``password``, ``user_domain_name`` ...).
    """

    auth_type: str = opts.TRUSTEE_AUTH_TYPE
    options: tuple[tuple[str, str], ...] = dataclasses.field(default=(), repr=False)

    @property
    def configured(self) -> bool:
        """Whether a user is named (by name or id)."""
        named = dict(self.options)
        return bool(named.get("username") or named.get("user_id"))


@dataclasses.dataclass(frozen=True, slots=True)
class StackDomainSettings:
    """The Keystone domain of the stack users (servers' and wait condition handles' own
    users) and its administrator, as Heat configures them."""

    domain_id: str | None = None
    domain_name: str | None = None
    admin: str | None = None
    admin_password: str | None = dataclasses.field(default=None, repr=False)
    user_role: str = "heat_stack_user"
    #: The region agents find Thermik and Zaqar in (``region_name_for_agents``).
    agent_region: str | None = None

    @property
    def configured(self) -> bool:
        """Whether a stack user domain is configured."""
        return bool(self.domain_id or self.domain_name)


@dataclasses.dataclass(frozen=True, slots=True)
class KeystoneSettings:
    """How the engine acts for users in service mode: Keystone, trusts and stack users."""

    #: Keystone's URL: ``[clients_keystone] auth_uri``, else ``[keystone_authtoken]
    #: www_authenticate_uri``, else ``[trustee] auth_url``.
    auth_uri: str | None = None
    deferred_auth_method: str = "trusts"
    trusts_delegated_roles: tuple[str, ...] = ()
    trustee: TrusteeSettings = TrusteeSettings()
    stack_domain: StackDomainSettings = StackDomainSettings()


@dataclasses.dataclass(frozen=True, slots=True)
class Settings:
    """All of Thermik's configuration, typed."""

    state_dir: Path
    database: DatabaseSettings
    limits: LimitSettings = LimitSettings()
    engine: EngineSettings = EngineSettings()
    delivery: DeliverySettings = DeliverySettings()
    swift: SwiftSettings = SwiftSettings()
    zaqar: ZaqarSettings = ZaqarSettings()
    api: ApiSettings = ApiSettings()
    rpc: RpcSettings = RpcSettings()
    clients: ClientSettings = ClientSettings()
    keystone: KeystoneSettings = KeystoneSettings()
    auth_encryption_key: str | None = None

    @classmethod
    def embedded(cls, state_dir: Path | None = None) -> Settings:
        """Settings of the embedded default: SQLite under ``state_dir``, defaults elsewhere."""
        state = state_dir or default_state_dir()
        return cls(state_dir=state, database=DatabaseSettings(sqlite_url(state)))

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> Settings:
        """Build Settings from a ``ConfigOpts`` on which :func:`opts.register_opts` ran."""
        state = Path(conf.state_dir) if conf.state_dir else default_state_dir()
        database = _group(DatabaseSettings, conf.database)
        if not database.connection:
            database = dataclasses.replace(database, connection=sqlite_url(state))
        return cls(
            state_dir=state,
            database=database,
            limits=_group(LimitSettings, conf),
            engine=_group(EngineSettings, conf.engine),
            delivery=_group(DeliverySettings, conf.delivery),
            swift=_group(SwiftSettings, conf.swift),
            zaqar=_group(ZaqarSettings, conf.zaqar),
            api=_group(ApiSettings, conf.api),
            rpc=_group(RpcSettings, conf.rpc),
            clients=ClientSettings(
                region_name=conf.region_name_for_services,
                retry_limit=conf.client_retry_limit,
                cloud=conf.cloud,
                cloud_config_file=conf.cloud_config_file,
                defaults=_group(ClientOptions, conf.clients),
                services={
                    name: _group(ClientOptions, conf[f"clients_{name}"])
                    for name in opts.CLIENT_SERVICES
                },
            ),
            keystone=keystone_settings(conf),
            auth_encryption_key=conf.auth_encryption_key,
        )


def keystone_settings(conf: cfg.ConfigOpts) -> KeystoneSettings:
    """The identity options of ``conf``, checked as Heat checks them at start-up.

    Raises:
        ConfigError: a stack user domain without its administrator, or a trustee plugin
            that trusts cannot scope.
    """
    trustee = conf.trustee
    auth_type = trustee.auth_type or opts.TRUSTEE_AUTH_TYPE
    if auth_type not in TRUSTEE_AUTH_TYPES:
        raise ConfigError(
            f"[trustee] auth_type = {auth_type} cannot be scoped by a trust; use password"
        )
    names = [opt.dest for opt in ks_loading.get_auth_plugin_conf_options(opts.TRUSTEE_AUTH_TYPE)]
    options = tuple((name, str(trustee[name])) for name in names if trustee[name])
    domain = StackDomainSettings(
        domain_id=conf.stack_user_domain_id,
        domain_name=conf.stack_user_domain_name,
        admin=conf.stack_domain_admin,
        admin_password=conf.stack_domain_admin_password,
        user_role=conf.heat_stack_user_role,
        agent_region=conf.region_name_for_agents or conf.region_name_for_services,
    )
    if domain.configured and not (domain.admin and domain.admin_password):
        raise ConfigError(
            "stack_user_domain_id or stack_user_domain_name is set without "
            "stack_domain_admin and stack_domain_admin_password ([DEFAULT])"
        )
    return KeystoneSettings(
        auth_uri=conf.clients_keystone.auth_uri
        or _authtoken_uri(conf)
        or dict(options).get("auth_url"),
        deferred_auth_method=conf.deferred_auth_method,
        trusts_delegated_roles=tuple(conf.trusts_delegated_roles),
        trustee=TrusteeSettings(auth_type, options),
        stack_domain=domain,
    )


#: keystoneauth plugins of the trustee that accept a trust_id.
TRUSTEE_AUTH_TYPES = frozenset({"password", "v3password"})


def _authtoken_uri(conf: cfg.ConfigOpts) -> str | None:
    """``[keystone_authtoken] www_authenticate_uri``, registered the way keystonemiddleware
    registers it (only read with the keystone strategy: the middleware is slow to import)."""
    if conf.api.auth_strategy != "keystone":
        return None
    from keystonemiddleware.auth_token import list_opts  # noqa: PLC0415

    for group, group_opts in list_opts():
        conf.register_opts(
            [opt for opt in group_opts if opt.dest == "www_authenticate_uri"], group=group
        )
        uri = conf[group].www_authenticate_uri
        return str(uri) if uri else None
    return None


def sqlite_url(state_dir: Path) -> str:
    """The SQLAlchemy URL of the embedded database under ``state_dir``."""
    return f"sqlite:///{state_dir / 'thermik.sqlite'}"


def _group(kind: type[Any], values: Any) -> Any:
    fields = {f.name: getattr(values, f.name) for f in dataclasses.fields(kind)}
    if "connection" in fields and fields["connection"] is None:
        fields["connection"] = ""
    return kind(**fields)


def load(argv: list[str] | None = None, config_files: list[str] | None = None) -> Settings:
    """Parse ``argv``/config files into a fresh ``ConfigOpts`` and return Settings.

    Used by the console scripts, which are the composition root.
    """
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    conf(
        args=argv or [],
        project="thermik",
        default_config_files=config_files or [],
        default_config_dirs=[],
    )
    return Settings.from_conf(conf)
