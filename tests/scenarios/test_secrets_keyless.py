"""An engine whose store has no key (a service without ``auth_encryption_key``).

Nothing secret can exist there (hidden parameters and redacted data need the key), so
documents stay in clear; a resource whose plugin declares a secret is refused, never stored.
"""

from __future__ import annotations

from tests.scenarios.runtime_harness import harness_on, res
from thermik.engine.states import Action


def test_a_plugin_secret_is_refused_and_the_rest_stays_in_clear(sqlite_url: str) -> None:
    with harness_on(sqlite_url, key=None) as harness:
        plain = harness.create({"a": res("visible")})
        assert harness.value_of(plain, "a") == "visible"
        handle = harness.stack({"handle": {"type": "OS::Heat::WaitConditionHandle"}}, name="h")
        assert harness.run(handle, Action.CREATE) == "CREATE_FAILED"
        row = harness.live(handle)["handle"]
        assert row.status_reason == (
            "SecretKeyError: resources.handle.attributes.token: cannot store a secret: "
            "auth_encryption_key is not configured"
        )
        assert harness.store.get_resource_properties(row.id) is None
