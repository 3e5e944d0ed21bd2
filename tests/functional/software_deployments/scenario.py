"""The end-to-end scenario both transports run: a DeployedServer, three script deployments
applied by the real agent, then an update that changes one deployment's input."""

from __future__ import annotations

from pathlib import Path

from tests.functional.services import AgentSandbox
from tests.functional.software_deployments.engine import EngineUnderTest

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  marks: {type: string}
  who: {type: string, default: two}
  signal: {type: string, default: TEMP_URL_SIGNAL}
resources:
  server:
    type: OS::Heat::DeployedServer
    properties:
      software_config_transport: POLL_TEMP_URL
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: who}, {name: marks}]
      outputs: [{name: result}]
      config: |
        #!/bin/sh
        echo "$deploy_action $who" >> "$marks/$deploy_resource_name"
        printf 'hello %s' "$who" > "$heat_outputs_path.result"
        echo "ran for $who"
  first:
    type: OS::Heat::SoftwareDeployment
    properties:
      name: a-first
      server: {get_resource: server}
      config: {get_resource: config}
      signal_transport: {get_param: signal}
      input_values: {who: one, marks: {get_param: marks}}
  second:
    type: OS::Heat::SoftwareDeployment
    properties:
      name: b-second
      server: {get_resource: server}
      config: {get_resource: config}
      signal_transport: {get_param: signal}
      input_values: {who: {get_param: who}, marks: {get_param: marks}}
  third:
    type: OS::Heat::SoftwareDeployment
    properties:
      name: c-third
      server: {get_resource: server}
      config: {get_resource: config}
      signal_transport: {get_param: signal}
      input_values: {who: three, marks: {get_param: marks}}
outputs:
  results:
    value:
      - {get_attr: [first, result]}
      - {get_attr: [second, result]}
      - {get_attr: [third, result]}
  stdout:
    value: {get_attr: [second, deploy_stdout]}
  codes:
    value:
      - {get_attr: [first, deploy_status_code]}
      - {get_attr: [second, deploy_status_code]}
      - {get_attr: [third, deploy_status_code]}
"""


def runs(marks: Path) -> dict[str, list[str]]:
    """What each deployment's script recorded, per run."""
    return {f.name: f.read_text().splitlines() for f in sorted(marks.iterdir())}


def deploy_and_update(engine: EngineUnderTest, agent: AgentSandbox, marks: Path) -> None:
    """Create, let the agent apply everything, then update one input; assert each step."""
    marks.mkdir()
    stack = engine.create("apps", TEMPLATE, marks=str(marks))
    with agent.polling(engine.metadata_url(stack), interval=1):
        view = engine.wait(stack)
        log = agent.log.read_text()[-3000:]
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), f"{view.status_reason}\n{log}"
        assert runs(marks) == {
            "first": ["CREATE one"],
            "second": ["CREATE two"],
            "third": ["CREATE three"],
        }
        outputs = engine.outputs(stack)
        assert outputs["results"] == ["hello one", "hello two", "hello three"]
        assert outputs["stdout"] == "ran for two\n"
        assert outputs["codes"] == [0, 0, 0]
        engine.update(stack, who="again")
        view = engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert runs(marks) == {
        "first": ["CREATE one"],
        "second": ["CREATE two", "UPDATE again"],
        "third": ["CREATE three"],
    }
    outputs = engine.outputs(stack)
    assert outputs["results"] == ["hello one", "hello again", "hello three"]
    assert len(list((agent.path / "deployed").glob("*.notify.json"))) == 4
