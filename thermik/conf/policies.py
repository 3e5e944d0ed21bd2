"""The API's policy in code: every rule Thermik enforces, with Heat's names and defaults.

The names are Heat's (``stacks:create``, ``resource:signal``, ``service:index`` ...), so a Heat
``policy.yaml`` applies to Thermik unchanged. The defaults are Heat's current ones (project
``reader`` reads, project ``member`` changes, project ``admin`` sees the services), each with
Heat's pre-Wallaby default as its deprecated rule, which oslo.policy ORs in only when
``[oslo_policy] enforce_new_defaults = False``.

One default differs: ``stacks:global_index`` (``?global_tenant=True``) is
``rule:context_is_admin`` here, where Heat denies everybody, because Thermik has always let
administrators list every tenant's stacks; ``"stacks:global_index": "!"`` restores Heat's.

``list_rules`` feeds ``oslopolicy-sample-generator`` (entry point ``oslo.policy.policies``);
``enforcer`` is the ``oslo.policy.enforcer`` entry point of ``oslopolicy-policy-generator`` and
the other ``oslopolicy-*`` tools.
"""

from __future__ import annotations

from oslo_config import cfg
from oslo_policy import policy

from thermik.conf import opts

CONTEXT_IS_ADMIN = "rule:context_is_admin"
PROJECT_ADMIN = "rule:project_admin"
DENY_STACK_USER = "rule:deny_stack_user"
DENY_EVERYBODY = "rule:deny_everybody"
ALLOW_EVERYBODY = "rule:allow_everybody"

READER = "role:reader and project_id:%(project_id)s"
MEMBER = "role:member and project_id:%(project_id)s"
STACK_USER = "role:heat_stack_user and project_id:%(project_id)s"
READER_OR_STACK_USER = f"({READER}) or ({STACK_USER})"
ADMIN = "role:admin and project_id:%(project_id)s"

TENANT = "/v1/{tenant_id}"
STACK = TENANT + "/stacks/{stack_name}/{stack_id}"
RESOURCE = STACK + "/resources/{resource_name}"

_LEGACY_REASON = (
    "Heat's defaults before project reader and member roles; evaluated only with "
    "[oslo_policy] enforce_new_defaults = False."
)

BASE_RULES = [
    policy.RuleDefault(
        "context_is_admin",
        "(role:admin and is_admin_project:True)",
        description="Who is an administrator: may address any tenant, list every tenant's "
        "stacks and see the engine services.",
    ),
    policy.RuleDefault("project_admin", "role:admin", description="An admin of the project."),
    policy.RuleDefault(
        "deny_stack_user",
        "not role:heat_stack_user",
        description="Anybody but heat_stack_user, the role of the users inside stacks.",
    ),
    policy.RuleDefault("deny_everybody", "!", description="Nobody."),
    policy.RuleDefault("allow_everybody", "", description="Everybody."),
]


def _rule(
    name: str,
    check: str,
    description: str,
    method: str,
    path: str,
    legacy: str | None = DENY_STACK_USER,
) -> policy.DocumentedRuleDefault:
    """One API rule (project scoped unless it is a ``global_index``)."""
    deprecated = (
        None
        if legacy is None
        else policy.DeprecatedRule(
            name,
            legacy,
            deprecated_reason=_LEGACY_REASON,
            deprecated_since="Heat's Wallaby release",
        )
    )
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check,
        description=description,
        operations=[{"path": path, "method": method}],
        deprecated_rule=deprecated,
        scope_types=None if name.endswith(":global_index") else ["project"],
    )


STACK_RULES = [
    _rule("stacks:abandon", MEMBER, "Abandon a stack.", "DELETE", STACK + "/abandon"),
    _rule("stacks:create", MEMBER, "Create (or adopt) a stack.", "POST", TENANT + "/stacks"),
    _rule("stacks:delete", MEMBER, "Delete a stack.", "DELETE", STACK),
    _rule("stacks:detail", READER, "List stacks in detail.", "GET", TENANT + "/stacks/detail"),
    _rule("stacks:export", MEMBER, "Export a stack.", "GET", STACK + "/export"),
    _rule(
        "stacks:generate_template",
        MEMBER,
        "Generate a template from a resource type.",
        "GET",
        TENANT + "/resource_types/{type_name}/template",
    ),
    _rule(
        "stacks:global_index",
        CONTEXT_IS_ADMIN,
        "List the stacks of every tenant (global_tenant=True): administrators only by default.",
        "GET",
        TENANT + "/stacks",
        legacy=None,
    ),
    _rule("stacks:index", READER, "List stacks.", "GET", TENANT + "/stacks"),
    _rule(
        "stacks:list_resource_types",
        READER,
        "List resource types.",
        "GET",
        TENANT + "/resource_types",
    ),
    _rule(
        "stacks:list_template_versions",
        READER,
        "List template versions.",
        "GET",
        TENANT + "/template_versions",
    ),
    _rule(
        "stacks:list_template_functions",
        READER,
        "List the functions of a template version.",
        "GET",
        TENANT + "/template_versions/{template_version}/functions",
    ),
    _rule(
        "stacks:lookup",
        READER_OR_STACK_USER,
        "Find a stack by name or id (redirects to it).",
        "GET",
        TENANT + "/stacks/{stack_identity}",
        legacy=ALLOW_EVERYBODY,
    ),
    _rule("stacks:preview", READER, "Preview a stack.", "POST", TENANT + "/stacks/preview"),
    _rule(
        "stacks:resource_schema",
        READER,
        "Show a resource type's schema.",
        "GET",
        TENANT + "/resource_types/{type_name}",
    ),
    _rule("stacks:show", READER, "Show a stack.", "GET", STACK),
    _rule("stacks:template", READER, "Show a stack's template.", "GET", STACK + "/template"),
    _rule(
        "stacks:environment",
        READER,
        "Show a stack's environment.",
        "GET",
        STACK + "/environment",
    ),
    _rule("stacks:files", READER, "Show a stack's files.", "GET", STACK + "/files"),
    _rule("stacks:update", MEMBER, "Update a stack (PUT).", "PUT", STACK),
    _rule("stacks:update_patch", MEMBER, "Update a stack (PATCH).", "PATCH", STACK),
    _rule(
        "stacks:update_no_change",
        "rule:stacks:update_patch",
        "Update a stack (PATCH) changing nothing but re-running it.",
        "PATCH",
        STACK,
        legacy=None,
    ),
    _rule(
        "stacks:preview_update",
        MEMBER,
        "Preview a stack update (PUT).",
        "PUT",
        STACK + "/preview",
    ),
    _rule(
        "stacks:preview_update_patch",
        MEMBER,
        "Preview a stack update (PATCH).",
        "PATCH",
        STACK + "/preview",
    ),
    _rule(
        "stacks:validate_template",
        MEMBER,
        "Validate a template.",
        "POST",
        TENANT + "/validate",
    ),
    _rule("stacks:snapshot", MEMBER, "Snapshot a stack.", "POST", STACK + "/snapshots"),
    _rule(
        "stacks:show_snapshot",
        READER,
        "Show a snapshot.",
        "GET",
        STACK + "/snapshots/{snapshot_id}",
    ),
    _rule(
        "stacks:delete_snapshot",
        MEMBER,
        "Delete a snapshot.",
        "DELETE",
        STACK + "/snapshots/{snapshot_id}",
    ),
    _rule("stacks:list_snapshots", READER, "List snapshots.", "GET", STACK + "/snapshots"),
    _rule(
        "stacks:restore_snapshot",
        MEMBER,
        "Restore a snapshot.",
        "POST",
        STACK + "/snapshots/{snapshot_id}/restore",
    ),
    _rule("stacks:list_outputs", READER, "List a stack's outputs.", "GET", STACK + "/outputs"),
    _rule(
        "stacks:show_output",
        READER,
        "Show an output.",
        "GET",
        STACK + "/outputs/{output_key}",
    ),
]

_ACTIONS = STACK + "/actions"
ACTION_RULES = [
    _rule(
        "actions:action",
        MEMBER,
        "Stack actions, for an action without a rule of its own.",
        "POST",
        _ACTIONS,
    ),
    _rule("actions:snapshot", MEMBER, "Snapshot a stack (action).", "POST", _ACTIONS),
    _rule("actions:suspend", MEMBER, "Suspend a stack.", "POST", _ACTIONS),
    _rule("actions:resume", MEMBER, "Resume a suspended stack.", "POST", _ACTIONS),
    _rule("actions:check", READER, "Check a stack's resources.", "POST", _ACTIONS),
    _rule(
        "actions:cancel_update",
        MEMBER,
        "Cancel a stack operation and roll back.",
        "POST",
        _ACTIONS,
    ),
    _rule(
        "actions:cancel_without_rollback",
        MEMBER,
        "Cancel a stack operation without rolling back.",
        "POST",
        _ACTIONS,
    ),
]

RESOURCE_RULES = [
    _rule("resource:index", READER, "List resources.", "GET", STACK + "/resources"),
    _rule("resource:show", READER, "Show a resource.", "GET", RESOURCE),
    _rule(
        "resource:metadata",
        READER_OR_STACK_USER,
        "Show a resource's metadata.",
        "GET",
        RESOURCE + "/metadata",
        legacy=ALLOW_EVERYBODY,
    ),
    _rule(
        "resource:signal",
        READER_OR_STACK_USER,
        "Signal a resource.",
        "POST",
        RESOURCE + "/signal",
        legacy=ALLOW_EVERYBODY,
    ),
    _rule(
        "resource:mark_unhealthy",
        MEMBER,
        "Mark a resource unhealthy.",
        "PATCH",
        RESOURCE,
    ),
    _rule("events:index", READER, "List events.", "GET", STACK + "/events"),
    _rule("events:show", READER, "Show an event.", "GET", RESOURCE + "/events/{event_id}"),
]

_CONFIGS = TENANT + "/software_configs"
_DEPLOYMENTS = TENANT + "/software_deployments"
SOFTWARE_RULES = [
    _rule(
        "software_configs:global_index",
        DENY_EVERYBODY,
        "List the software configs of every tenant.",
        "GET",
        _CONFIGS,
        legacy=None,
    ),
    _rule("software_configs:index", READER, "List software configs.", "GET", _CONFIGS),
    _rule("software_configs:create", MEMBER, "Create a software config.", "POST", _CONFIGS),
    _rule(
        "software_configs:show",
        READER,
        "Show a software config.",
        "GET",
        _CONFIGS + "/{config_id}",
    ),
    _rule(
        "software_configs:delete",
        MEMBER,
        "Delete a software config.",
        "DELETE",
        _CONFIGS + "/{config_id}",
    ),
    _rule("software_deployments:index", READER, "List deployments.", "GET", _DEPLOYMENTS),
    _rule("software_deployments:create", MEMBER, "Create a deployment.", "POST", _DEPLOYMENTS),
    _rule(
        "software_deployments:show",
        READER,
        "Show a deployment.",
        "GET",
        _DEPLOYMENTS + "/{deployment_id}",
    ),
    _rule(
        "software_deployments:update",
        MEMBER,
        "Update a deployment.",
        "PUT",
        _DEPLOYMENTS + "/{deployment_id}",
    ),
    _rule(
        "software_deployments:delete",
        MEMBER,
        "Delete a deployment.",
        "DELETE",
        _DEPLOYMENTS + "/{deployment_id}",
    ),
    _rule(
        "software_deployments:metadata",
        READER_OR_STACK_USER,
        "Show the deployments' metadata of a server.",
        "GET",
        _DEPLOYMENTS + "/metadata/{server_id}",
        legacy=None,
    ),
]

SERVICE_RULES = [
    _rule(
        "build_info:build_info",
        READER,
        "Show the API's and the engine's revisions.",
        "GET",
        TENANT + "/build_info",
    ),
    _rule(
        "service:index",
        ADMIN,
        "List the engine services: administrators only by default.",
        "GET",
        TENANT + "/services",
        legacy=CONTEXT_IS_ADMIN,
    ),
]

#: Resource types only a project admin may use by default in Heat. Thermik has no plugin for
#: them; the rules are here so that a Heat policy file's overrides of them stay valid.
ADMIN_RESOURCE_TYPES = (
    "OS::Nova::Flavor",
    "OS::Cinder::EncryptedVolumeType",
    "OS::Cinder::VolumeType",
    "OS::Cinder::Quota",
    "OS::Neutron::Quota",
    "OS::Nova::Quota",
    "OS::Octavia::Quota",
    "OS::Manila::ShareType",
    "OS::Neutron::ProviderNet",
    "OS::Neutron::QoSPolicy",
    "OS::Neutron::QoSBandwidthLimitRule",
    "OS::Neutron::QoSDscpMarkingRule",
    "OS::Neutron::QoSMinimumBandwidthRule",
    "OS::Neutron::QoSMinimumPacketRateRule",
    "OS::Neutron::Segment",
    "OS::Nova::HostAggregate",
    "OS::Cinder::QoSSpecs",
    "OS::Cinder::QoSAssociation",
    "OS::Keystone::*",
    "OS::Blazar::Host",
    "OS::Octavia::Flavor",
    "OS::Octavia::FlavorProfile",
    "OS::Octavia::AvailabilityZone",
    "OS::Octavia::AvailabilityZoneProfile",
)

RESOURCE_TYPE_RULES = [
    policy.RuleDefault(f"resource_types:{name}", PROJECT_ADMIN, scope_types=["project"])
    for name in ADMIN_RESOURCE_TYPES
]


def list_rules() -> list[policy.RuleDefault]:
    """Every rule default, for the Enforcer and ``oslopolicy-sample-generator``."""
    return [
        *BASE_RULES,
        *ACTION_RULES,
        *SERVICE_RULES,
        *RESOURCE_RULES,
        *RESOURCE_TYPE_RULES,
        *SOFTWARE_RULES,
        *STACK_RULES,
    ]


def build_enforcer(conf: cfg.ConfigOpts | None = None) -> policy.Enforcer:
    """An Enforcer with every default registered.

    ``conf`` is the service's configuration: ``[oslo_policy] policy_file`` (``policy.yaml``,
    searched beside the config files) overrides the defaults. Without one, only the defaults
    apply and no file is read.
    """
    rules = list_rules()
    if conf is None:
        blank = cfg.ConfigOpts()
        blank(args=[], default_config_files=[], default_config_dirs=[])
        enforcer = policy.Enforcer(blank, use_conf=False)
        # Without use_conf the Enforcer reads no file (a blank ConfigOpts would find one in
        # ~ or /etc) and so never merges the defaults into its rules: set them here.
        enforcer.set_rules(policy.Rules({rule.name: rule.check for rule in rules}))
    else:
        enforcer = policy.Enforcer(conf)
    # Only the deprecated (pre-Wallaby) rules would warn, once per rule: as Heat, stay quiet.
    enforcer.suppress_deprecation_warnings = True
    enforcer.register_defaults(rules)
    return enforcer


def enforcer() -> policy.Enforcer:
    """The ``oslo.policy.enforcer`` entry point: the enforcer of ``/etc/thermik/thermik.conf``
    (oslo.config's default discovery), for ``oslopolicy-policy-generator`` and friends."""
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    conf(args=[], project="thermik")
    return build_enforcer(conf)
