"""``thermik`` speaks ``openstack stack``: python-heatclient's command names, options and
columns, the names thermik had before kept as aliases, and the commands it added."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import Cli, write_project

#: Every command python-heatclient's OSC plugin has that thermik offers (all but the hooks).
OSC_COMMANDS = (
    "orchestration build info",
    "orchestration resource type list",
    "orchestration resource type show",
    "orchestration service list",
    "orchestration template function list",
    "orchestration template validate",
    "orchestration template version list",
    "stack abandon",
    "stack adopt",
    "stack cancel",
    "stack check",
    "stack create",
    "stack delete",
    "stack environment show",
    "stack event list",
    "stack event show",
    "stack export",
    "stack failures list",
    "stack file list",
    "stack list",
    "stack output list",
    "stack output show",
    "stack resource list",
    "stack resource mark unhealthy",
    "stack resource metadata",
    "stack resource show",
    "stack resource signal",
    "stack resume",
    "stack show",
    "stack snapshot create",
    "stack snapshot delete",
    "stack snapshot list",
    "stack snapshot restore",
    "stack snapshot show",
    "stack suspend",
    "stack template show",
    "stack update",
)
#: The names thermik had before, and the OSC command each is an alias of.
ALIASES = {
    "event list": "stack event list",
    "output list": "stack output list",
    "output show": "stack output show",
    "resource list": "stack resource list",
    "resource show": "stack resource show",
    "resource signal": "stack resource signal",
    "template show": "stack template show",
    "template validate": "orchestration template validate",
}

FAILING = """\
heat_template_version: 2018-08-31
resources:
  fine:
    type: OS::Heat::TestResource
    metadata: {role: web}
    properties: {value: hi}
  broken:
    type: OS::Heat::TestResource
    properties: {fail: true}
"""


def registered() -> dict[str, str]:
    return {
        ep.name.replace("_", " "): ep.value for ep in metadata.entry_points(group="thermik.cli")
    }


def test_every_osc_name_is_a_command_and_old_names_are_aliases() -> None:
    commands = registered()
    assert [name for name in OSC_COMMANDS if name not in commands] == []
    assert {old: commands[old] for old in ALIASES} == {
        old: commands[new] for old, new in ALIASES.items()
    }


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    created = Cli(tmp_path, capsys)
    template = write_project(tmp_path / "project")
    assert created("stack", "create", "-t", str(template), "--wait", "web").status == 0
    return created


def test_resource_and_event_commands_under_stack(cli: Cli) -> None:
    listed = cli("stack", "resource", "list", "web", "-f", "json").json()
    assert sorted(r["resource_name"] for r in listed) == ["first", "note", "second"]
    assert cli("resource", "list", "web", "-f", "json").json() == listed
    shown = cli("stack", "resource", "show", "web", "first", "-f", "json").json()
    assert shown["resource_status"] == "CREATE_COMPLETE"
    event_id = cli(
        "stack", "event", "list", "web", "--resource", "first", "-f", "value", "-c", "id"
    ).out.split()[0]
    event = cli("stack", "event", "show", "web", "first", event_id, "-f", "json").json()
    assert (event["id"], event["resource_name"], event["resource_status"]) == (
        event_id,
        "first",
        "CREATE_IN_PROGRESS",
    )
    assert event["resource_type"] == "OS::Heat::TestResource"
    missing = cli("stack", "event", "show", "web", "first", "no-such-event")
    assert (missing.status, missing.err) == (
        1,
        "ERROR: The Event (no-such-event) could not be found.\n",
    )


def test_output_and_template_commands_under_stack(cli: Cli) -> None:
    outputs = cli("stack", "output", "list", "web", "-f", "json").json()
    assert [o["output_key"] for o in outputs] == ["echo", "note"]
    shown = cli("stack", "output", "show", "web", "note", "-f", "json").json()
    assert shown["output_value"] == "from a file"
    template = cli("stack", "template", "show", "web", "-f", "json").json()
    assert template["heat_template_version"] == "2018-08-31"


def test_environment_files_and_export(cli: Cli, tmp_path: Path) -> None:
    environment = cli("stack", "environment", "show", "web", "-f", "json").json()
    assert list(environment) == ["parameters", "resource_registry", "parameter_defaults"]
    assert cli("stack", "environment", "show", "web").out.startswith("parameters: {}\n")
    files = cli("stack", "file", "list", "web", "-f", "json").json()
    assert list(files) == ["files"]
    assert list(files["files"].values()) == ["from a file"]
    exported = cli("stack", "export", "web").json()
    assert (exported["name"], exported["action"], exported["status"]) == (
        "web",
        "CREATE",
        "COMPLETE",
    )
    assert sorted(exported["resources"]) == ["first", "note", "second"]
    target = tmp_path / "export.json"
    assert cli("stack", "export", "web", "--output-file", str(target)).status == 0
    assert json.loads(target.read_text(encoding="utf-8"))["id"] == exported["id"]
    # Export leaves the stack as it was (abandon would forget it).
    assert cli("stack", "show", "web", "-f", "value", "-c", "stack_status").out.strip() == (
        "CREATE_COMPLETE"
    )


def test_stack_list_short_all_projects_and_long(cli: Cli) -> None:
    short = cli("stack", "list", "--short", "-f", "json").json()
    assert list(short[0]) == ["ID", "Stack Name", "Stack Status"]
    every = cli("--project", "other", "stack", "list", "--all-projects", "-f", "json").json()
    assert list(every[0]) == [
        "ID",
        "Stack Name",
        "Project",
        "Stack Status",
        "Creation Time",
        "Updated Time",
    ]
    assert [(s["Stack Name"], s["Project"]) for s in every] == [("web", "local")]
    assert cli("--project", "other", "stack", "list", "-f", "json").json() == []
    long = cli("stack", "list", "--long", "-f", "json").json()
    assert list(long[0])[2:4] == ["Project", "Stack Owner"]


def test_update_converge_is_offered(cli: Cli) -> None:
    help_text = cli("stack", "update", "--help").out
    assert "--converge" in help_text
    done = cli("stack", "update", "--existing", "--converge", "--wait", "web")
    assert done.status == 0, done.err
    status = cli("stack", "show", "web", "-f", "value", "-c", "stack_status").out.strip()
    assert status == "UPDATE_COMPLETE"


def test_metadata_and_mark_unhealthy(tmp_path: Path, cli: Cli) -> None:
    template = tmp_path / "failing.yaml"
    template.write_text(FAILING, encoding="utf-8")
    assert cli("stack", "create", "-t", str(template), "--wait", "bad").status == 1
    assert cli("stack", "resource", "metadata", "bad", "fine").json() == {"role": "web"}
    marked = cli("stack", "resource", "mark", "unhealthy", "bad", "fine", "disk gone")
    assert (marked.status, marked.err) == (0, "")
    fine = cli("stack", "resource", "show", "bad", "fine", "-f", "json").json()
    assert (fine["resource_status"], fine["resource_status_reason"]) == (
        "CHECK_FAILED",
        "disk gone",
    )
    assert cli("stack", "resource", "mark", "unhealthy", "--reset", "bad", "fine").status == 0
    fine = cli("stack", "resource", "show", "bad", "fine", "-f", "json").json()
    assert fine["resource_status"] == "CHECK_COMPLETE"


def test_failures_list(tmp_path: Path, cli: Cli) -> None:
    template = tmp_path / "failing.yaml"
    template.write_text(FAILING, encoding="utf-8")
    assert cli("stack", "create", "-t", str(template), "--wait", "bad").status == 1
    failures = cli("stack", "failures", "list", "bad")
    assert failures.status == 0
    lines = failures.out.splitlines()
    assert lines[:5] == [
        "bad.broken:",
        "  resource_type: OS::Heat::TestResource",
        "  physical_resource_id: ",
        "  status: CREATE_FAILED",
        "  status_reason: |",
    ]
    assert "Test Resource failed broken" in lines[5]
    assert len(lines) == 6
    assert cli("stack", "failures", "list", "web").out == ""


def test_orchestration_commands(cli: Cli) -> None:
    info = cli("orchestration", "build", "info", "-f", "json").json()
    assert sorted(info) == ["api", "engine"]
    services = cli("orchestration", "service", "list", "-f", "json").json()
    assert list(services[0]) == [
        "Hostname",
        "Binary",
        "Engine ID",
        "Host",
        "Topic",
        "Updated At",
        "Status",
    ]
    versions = cli("orchestration", "template", "version", "list", "-f", "json").json()
    assert list(versions[0]) == ["Version", "Type", "Aliases"]
    kinds = {v["Version"]: v["Type"] for v in versions}
    assert kinds["heat_template_version.2018-08-31"] == "hot"
    assert kinds["AWSTemplateFormatVersion.2010-09-09"] == "cfn"
    functions = cli(
        "orchestration",
        "template",
        "function",
        "list",
        "heat_template_version.2018-08-31",
        "-f",
        "json",
    ).json()
    assert list(functions[0]) == ["Functions", "Description"]
    names = {f["Functions"] for f in functions}
    assert {"get_param", "get_attr", "str_replace"} <= names
    assert "equals" not in names
    conditions = cli(
        "orchestration",
        "template",
        "function",
        "list",
        "heat_template_version.2018-08-31",
        "--with_conditions",
        "-f",
        "json",
    ).json()
    assert "equals" in {f["Functions"] for f in conditions}


def test_resource_type_commands(cli: Cli) -> None:
    types = cli("orchestration", "resource", "type", "list", "-f", "json").json()
    assert list(types[0]) == ["Resource Type"]
    assert {"Resource Type": "OS::Heat::Value"} in types
    described = cli(
        "orchestration",
        "resource",
        "type",
        "list",
        "--filter",
        "name=Heat::Value$",
        "--long",
        "-f",
        "json",
    ).json()
    assert [t["Resource Type"] for t in described] == ["OS::Heat::Value"]
    assert described[0]["Description"]
    shown = cli("orchestration", "resource", "type", "show", "OS::Heat::Value", "-f", "json")
    assert shown.json()["resource_type"] == "OS::Heat::Value"
    assert "description" not in shown.json()
    long = cli("orchestration", "resource", "type", "show", "OS::Heat::Value", "--long")
    assert "description:" in long.out
    template = cli(
        "orchestration",
        "resource",
        "type",
        "show",
        "OS::Heat::None",
        "--template-type",
        "HOT",
        "-f",
        "json",
    ).json()
    assert template["resources"]["None"]["type"] == "OS::Heat::None"
    both = cli(
        "orchestration",
        "resource",
        "type",
        "show",
        "OS::Heat::None",
        "--long",
        "--template-type",
        "hot",
    )
    assert both.err == "ERROR: Cannot use --template-type and --long in one time.\n"
    wrong = cli(
        "orchestration", "resource", "type", "show", "OS::Heat::None", "--template-type", "xml"
    )
    assert wrong.err == "ERROR: Template type invalid: xml\n"
    unknown = cli("orchestration", "resource", "type", "list", "--filter", "colour=red")
    assert unknown.status == 1
    assert "colour" in unknown.err


def test_validate_says_which_function_a_typo_meant(tmp_path: Path, cli: Cli) -> None:
    template = tmp_path / "typo.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  size: {type: number, default: 1}\n"
        "resources:\n  r:\n    type: OS::Heat::RandomString\n"
        "    properties: {length: {get_parm: size}}\n",
        encoding="utf-8",
    )
    done = cli("orchestration", "template", "validate", "-t", str(template))
    assert done.status == 1
    assert done.err.splitlines() == [
        "WARNING: resources.r.properties.length: 'get_parm' is not a function of this "
        "template version, so it is taken as data; did you mean 'get_param'?",
        "ERROR: resources.r.properties.length: Value '{'get_parm': 'size'}' is not an "
        "integer ('get_parm' is not a function: did you mean 'get_param'?)",
    ]


def test_software_config_and_deployment_commands(tmp_path: Path, cli: Cli) -> None:
    script = tmp_path / "hello.sh"
    script.write_text("echo hello\n", encoding="utf-8")
    definition = tmp_path / "definition.yaml"
    definition.write_text(
        "inputs:\n- name: who\n  default: world\noutputs:\n- name: result\n", encoding="utf-8"
    )
    # The command's own --config-file, not thermik's global one.
    created = cli(
        "software", "config", "create", "hello", "--config-file", str(script),
        "--definition-file", str(definition), "--group", "script", "-f", "json",
    ).json()  # fmt: skip
    config_id = created["id"]
    assert (created["name"], created["group"], created["config"]) == (
        "hello",
        "script",
        "echo hello\n",
    )
    listed = cli("software", "config", "list", "-f", "json").json()
    assert [(c["id"], list(c)) for c in listed] == [
        (config_id, ["id", "name", "group", "creation_time"])
    ]
    shown = cli("software", "config", "show", config_id, "-f", "json").json()
    assert list(shown) == [
        "id",
        "name",
        "group",
        "config",
        "inputs",
        "outputs",
        "options",
        "creation_time",
    ]
    assert cli("software", "config", "show", config_id, "--config-only").out == "echo hello\n\n"
    deployed = cli(
        "software", "deployment", "create", "greet", "--config", config_id,
        "--server", "server-1", "--input-value", "who=you", "-f", "json",
    ).json()  # fmt: skip
    assert (deployed["server_id"], deployed["action"], deployed["status"]) == (
        "server-1",
        "UPDATE",
        "IN_PROGRESS",
    )
    metadata = json.loads(cli("software", "deployment", "metadata", "show", "server-1").out)
    assert [m["name"] for m in metadata] == ["greet"]
    inputs = {i["name"]: i["value"] for i in metadata[0]["inputs"]}
    assert inputs["who"] == "you"
    assert inputs["deploy_server_id"] == "server-1"
    assert inputs["deploy_action"] == "UPDATE"
    listed = cli("software", "deployment", "list", "--long", "-f", "json").json()
    assert list(listed[0]) == [
        "id",
        "config_id",
        "server_id",
        "action",
        "status",
        "creation_time",
        "status_reason",
    ]
    shown = cli("software", "deployment", "show", deployed["id"], "--long", "-f", "json").json()
    assert list(shown)[-1] == "output_values"
    neither = cli("software", "deployment", "output", "show", deployed["id"])
    assert neither.err == "ERROR: Error: either <output-name> or --all argument is needed.\n"
    signal = cli(
        "software", "deployment", "create", "x", "--server", "s", "--signal-transport", "HEAT"
    )
    assert signal.status == 1
    assert cli("software", "deployment", "delete", deployed["id"]).status == 0
    assert cli("software", "deployment", "list", "-f", "json").json() == []
    assert cli("software", "config", "delete", config_id).status == 0
    missing = cli("software", "config", "delete", config_id)
    assert missing.status == 1
    assert "could not be found" in missing.err


def test_global_options_are_read_before_the_command_only() -> None:
    from thermik.cmd.cli import ThermikApp, command_start

    parser = ThermikApp().build_option_parser("thermik", "0")
    argv = ["--config-file", "a.conf", "-v", "software", "config", "create", "--config-file", "b"]
    assert command_start(parser, argv) == 3
    options, rest = parser.parse_known_args(argv)
    assert options.config_file == ["a.conf"]
    assert rest == ["software", "config", "create", "--config-file", "b"]
