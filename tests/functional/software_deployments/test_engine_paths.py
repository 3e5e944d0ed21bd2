"""Deployment paths through the whole engine that need no real service: signals through the
REST API's resource signal (HEAT_SIGNAL), NO_SIGNAL, groups, structured configs, a DELETE action
run while the stack is deleted, and a failing script's reason on the stack."""

from __future__ import annotations

import time
from pathlib import Path

from tests.functional.software_deployments.engine import CTX, EngineUnderTest
from tests.functional.software_deployments.http_agent import HttpAgent

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  server: {type: OS::Heat::DeployedServer}
  other: {type: OS::Heat::DeployedServer}
  script:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: 'true', outputs: [{name: result}]}
  tree:
    type: OS::Heat::StructuredConfig
    properties:
      group: os-apply-config
      config: {port: {get_input: port}, action: {get_input: deploy_action}}
  by_api:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_resource: server}
      config: {get_resource: script}
      signal_transport: HEAT_SIGNAL
  quiet:
    type: OS::Heat::StructuredDeployment
    properties:
      server: {get_resource: server}
      config: {get_resource: tree}
      input_values: {port: 8080}
      signal_transport: NO_SIGNAL
  everywhere:
    type: OS::Heat::SoftwareDeploymentGroup
    properties:
      servers: {a: {get_resource: server}, b: {get_resource: other}}
      config: {get_resource: script}
      signal_transport: TEMP_URL_SIGNAL
      actions: [CREATE, DELETE]
outputs:
  by_api: {value: {get_attr: [by_api, result]}}
  stdouts: {value: {get_attr: [everywhere, deploy_stdouts]}}
"""


def test_api_signals_no_signal_groups_structured_and_delete_actions(tmp_path: Path) -> None:
    engine = EngineUnderTest(tmp_path)
    try:
        stack = engine.create("paths", TEMPLATE)
        first = HttpAgent(engine.metadata_url(stack, "server"))
        second = HttpAgent(engine.metadata_url(stack, "other"))
        with first.running(), second.running():
            while engine.service.show_resource(CTX, stack, "by_api").status != "IN_PROGRESS":
                time.sleep(0.02)
            engine.service.signal_resource(
                CTX, stack, "by_api", {"deploy_status_code": 0, "result": "signalled"}
            )
            view = engine.wait(stack, 60)
            assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
            outputs = engine.outputs(stack)
            assert outputs["by_api"] == "signalled"
            assert sorted(outputs["stdouts"].items()) == [("a", "a"), ("b", "b")]
            served = first.document() or {}
            tree = [d for d in served["deployments"] if d["group"] == "os-apply-config"]
            assert [d["config"] for d in tree] == [{"port": 8080, "action": "CREATE"}]
            signal_events = [e for e in engine.events(stack) if e.resource_name == "by_api"]
            assert "Signal: deployment succeeded" in [e.status_reason for e in signal_events]
            engine.service.delete_stack(CTX, stack)
            view = engine.wait(stack, 60)
            assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        # The group's CREATE and DELETE actions on each server; the others take no URL signal.
        assert len(first.signalled) == len(second.signalled) == 2
    finally:
        engine.close()


FAILING = """\
heat_template_version: 2018-08-31
resources:
  server: {type: OS::Heat::DeployedServer}
  script: {type: OS::Heat::SoftwareConfig, properties: {group: script, config: 'false'}}
  broken:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_resource: server}
      config: {get_resource: script}
"""


def test_a_failing_script_fails_the_stack_with_heats_reason(tmp_path: Path) -> None:
    engine = EngineUnderTest(tmp_path)
    try:
        stack = engine.create("failing", FAILING)
        url = engine.metadata_url(stack)
        with HttpAgent(url, status_code=2).running():
            view = engine.wait(stack, 60)
        assert (view.action, view.status) == ("CREATE", "FAILED")
        assert view.status_reason == (
            "Resource CREATE failed: Error: resources.broken: Deployment to server failed: "
            "deploy_status_code : Deployment exited with non-zero status code: 2"
        )
    finally:
        engine.close()
