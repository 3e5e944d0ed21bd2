"""Local mode's engine daemon, through the real ``thermik`` console script in real processes.

One long-lived engine per state directory, started by the first command that needs it: stacks
go on after the command that started them exited, any terminal acts on any stack, builtin
delivery URLs stay served, ``thermik engine status|stop`` manage it, and a daemon killed with
kill -9 is replaced by the next command, which resumes its stacks when their leases expire,
and a daemon that holds the directory but does not answer (an earlier release's) is named.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.e2e.local_daemon import SERVER_TEMPLATE, alive, slow_template, terminal
from thermik.clients import local_daemon as local
from thermik.cmd.local_engine import state_lock

OPENSTACK = str(Path(sys.executable).with_name("openstack"))
WORD_TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  word: {type: OS::Heat::RandomString, properties: {length: 6}}
outputs:
  value: {value: {get_attr: [word, value]}}
"""


def write(root: Path, name: str, text: str) -> str:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_create_without_wait_finishes_after_the_command_exited(tmp_path: Path) -> None:
    with terminal(tmp_path) as term:
        template = write(tmp_path, "slow.yaml", slow_template(5.0))
        created = term.run("stack", "create", "-t", template, "quick")
        assert created.status == 0, created.err
        assert term.stack_state("quick") == "CREATE_IN_PROGRESS"
        # Nothing runs thermik from here on: only the daemon can finish the stack.
        assert term.settles("quick") == "CREATE_COMPLETE"
        shown = term.run("stack", "show", "quick", "-f", "json")
        assert shown.json()["stack_status"] == "CREATE_COMPLETE"


def test_a_second_terminal_deletes_the_stack_the_first_waits_on(tmp_path: Path) -> None:
    with terminal(tmp_path) as term:
        template = write(tmp_path, "slow.yaml", slow_template(30.0))
        with term.start("stack", "create", "--wait", "-t", template, "long") as waiter:
            deadline = time.monotonic() + 60
            while term.stack_state("long") != "CREATE_IN_PROGRESS":
                assert waiter.poll() is None, waiter.communicate()
                assert time.monotonic() < deadline, "the create never started"
                time.sleep(0.2)
            deleted = term.run("stack", "delete", "--yes", "--wait", "long")
            assert deleted.status == 0, deleted.err
            out, err = waiter.communicate(timeout=120)
        assert "DELETE" in err, err
        assert waiter.returncode == 1, (out, err)
        assert "deleted meanwhile" in err.splitlines()[-1], err
        assert term.stack_state("long") == "DELETE_COMPLETE"


def test_builtin_metadata_url_answers_after_the_commands_exited(tmp_path: Path) -> None:
    with terminal(tmp_path, idle_timeout=2) as term:
        template = write(tmp_path, "server.yaml", SERVER_TEMPLATE)
        created = term.run("stack", "create", "--wait", "-t", template, "srv")
        assert created.status == 0, created.err
        output = term.run("stack", "output", "show", "srv", "agent", "-f", "json")
        agent = output.json()["output_value"]
        url = agent["request"]["metadata_url"]
        # Longer than the idle timeout: the server to serve keeps the daemon up.
        time.sleep(6)
        with urllib.request.urlopen(url, timeout=30) as response:
            metadata = json.loads(response.read())
        assert metadata["deployments"] == []
        assert metadata["os-collect-config"]["request"]["metadata_url"] == url
        status = term.run("engine", "status", "-f", "json").json()
        assert status["status"] == "running"
        assert "builtin URLs" in status["busy"]


def test_engine_status_and_stop(tmp_path: Path) -> None:
    with terminal(tmp_path) as term:
        assert term.run("engine", "status", "-f", "json").json()["status"] == "not running"
        assert term.run("stack", "list").status == 0
        status = term.run("engine", "status", "-f", "json").json()
        assert status["status"] == "running"
        pid = int(status["pid"])
        assert alive(pid)
        assert oct((term.state / "engine.json").stat().st_mode & 0o777) == "0o600"
        stopped = term.run("engine", "stop")
        assert stopped.out.strip() == f"Stopped the local engine (pid {pid})"
        assert not alive(pid)
        assert term.run("engine", "status", "-f", "json").json()["status"] == "not running"
        assert term.run("engine", "stop").out.strip() == "The local engine is not running"


def test_the_daemon_exits_when_idle(tmp_path: Path) -> None:
    with terminal(tmp_path, idle_timeout=2) as term:
        template = write(tmp_path, "slow.yaml", slow_template(3.0, count=1))
        assert term.run("stack", "create", "-t", template, "brief").status == 0
        pid = term.daemon_pid()
        assert pid is not None
        assert term.settles("brief") == "CREATE_COMPLETE"
        deadline = time.monotonic() + 60
        while alive(pid):
            assert time.monotonic() < deadline, "the idle daemon did not exit"
            time.sleep(0.2)
        assert not (term.state / "engine.json").exists()


def test_a_killed_daemon_is_restarted_and_the_stack_resumes(tmp_path: Path) -> None:
    with terminal(tmp_path) as term:
        template = write(tmp_path, "slow.yaml", slow_template(2.0, count=3))
        assert term.run("stack", "create", "-t", template, "crash").status == 0
        first = term.daemon_pid()
        assert first is not None
        os.kill(first, signal.SIGKILL)
        while alive(first):
            time.sleep(0.05)
        assert term.stack_state("crash") == "CREATE_IN_PROGRESS"
        listed = term.run("stack", "list", "-f", "json")
        assert listed.status == 0, listed.err
        second = term.daemon_pid()
        assert second is not None
        assert second != first
        # The new daemon takes the stack over once the dead one's lease (5 s) expired.
        assert term.settles("crash") == "CREATE_COMPLETE"
        assert alive(second)


def test_a_command_naming_a_cloud_restarts_a_cloudless_daemon_with_it(tmp_path: Path) -> None:
    clouds = tmp_path / "clouds.yaml"
    clouds.write_text(
        "clouds:\n  elsewhere:\n    auth:\n      auth_url: http://127.0.0.1:9/v3\n"
        "      username: u\n      password: p\n      project_name: p\n"
        "      user_domain_name: Default\n      project_domain_name: Default\n",
        encoding="utf-8",
    )
    with terminal(tmp_path) as term:
        assert term.run("stack", "list").status == 0
        first = term.daemon_pid()
        assert term.run("engine", "status", "-f", "json").json()["cloud"] == ""
        os.environ["OS_CLIENT_CONFIG_FILE"] = str(clouds)
        try:
            listed = term.run("--os-cloud", "elsewhere", "stack", "list")
        finally:
            del os.environ["OS_CLIENT_CONFIG_FILE"]
        assert listed.status == 0, listed.err
        assert first is not None
        assert not alive(first)
        status = term.run("engine", "status", "-f", "json").json()
        assert status["cloud"] == "elsewhere"


def test_a_daemon_that_holds_the_directory_but_does_not_answer_is_named(tmp_path: Path) -> None:
    # What an earlier release's daemon looks like to this one: it holds the directory's lock
    # and recorded an address, but refuses (or does not hear) this release's calls.
    stranger = subprocess.Popen(["sleep", "300"])
    try:
        with terminal(tmp_path) as term, state_lock(term.state) as held:
            assert held
            recorded = local.EngineAddress(
                pid=stranger.pid, url="http://127.0.0.1:9", token="old", engine_id="e-old"
            )
            recorded.write(term.state / local.ENGINE_FILE)
            listed = term.run("stack", "list")
            assert listed.status != 0
            assert f"Another engine daemon (pid {stranger.pid})" in listed.err
            assert f"kill -TERM {stranger.pid}" in listed.err
            assert "Traceback" not in listed.err
    finally:
        stranger.kill()
        stranger.wait()


def test_the_unmodified_openstack_client_drives_the_local_engine(tmp_path: Path) -> None:
    # The daemon serves Heat's v1 API: with the token of engine.json, the openstack CLI is
    # one more terminal acting on the same stacks.
    with terminal(tmp_path) as term:
        assert term.run("stack", "list").status == 0
        recorded = json.loads((term.state / "engine.json").read_text(encoding="utf-8"))
        template = write(tmp_path, "word.yaml", WORD_TEMPLATE)

        def openstack(token: str, *args: str) -> subprocess.CompletedProcess[str]:
            auth = ["--os-auth-type", "admin_token", "--os-token", token]
            endpoint = ["--os-endpoint", f"{recorded['url']}/v1/local"]
            return subprocess.run(
                [OPENSTACK, *auth, *endpoint, *args],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )

        made = openstack(recorded["token"], "stack", "create", "-t", template, "--wait", "osc")
        assert made.returncode == 0, made.stderr
        shown = term.run("stack", "output", "show", "osc", "value", "-f", "json")
        assert len(shown.json()["output_value"]) == 6
        refused = openstack("a-guess", "stack", "list")
        assert refused.returncode != 0
        assert "missing or wrong X-Auth-Token" in refused.stderr
