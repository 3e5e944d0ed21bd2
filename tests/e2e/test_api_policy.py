"""``thermik-api`` reads the operator's policy.yaml beside its thermik.conf, as Heat does, and
heatclient sees Heat's 403."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from tests.e2e.support import TEMPLATE, settled
from tests.e2e.test_api_process import ApiProcess


@pytest.fixture
def api(tmp_path: Path) -> Iterator[ApiProcess]:
    (tmp_path / "policy.yaml").write_text(
        '"stacks:delete": "!"\n"service:index": "role:member"\n', encoding="utf-8"
    )
    config = tmp_path / "thermik.conf"
    config.write_text(f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n", encoding="utf-8")
    process = ApiProcess(config)
    try:
        yield process
    finally:
        process.close()


def test_policy_file_beside_the_config(api: ApiProcess) -> None:
    heat = heat_client.Client("1", endpoint=f"{api.root}/v1/t1", token="t")
    created = heat.stacks.create(stack_name="kept", template=TEMPLATE, parameters={"word": "w"})
    stack_id = created["stack"]["id"]
    assert settled(heat, stack_id).stack_status == "CREATE_COMPLETE"
    with pytest.raises(heat_exc.HTTPForbidden, match=r"not authorized to use stacks:delete\."):
        heat.stacks.delete(stack_id)
    assert heat.stacks.get(stack_id).stack_status == "CREATE_COMPLETE"
    (engine,) = heat.services.list()
    assert engine.binary == "thermik-engine"
