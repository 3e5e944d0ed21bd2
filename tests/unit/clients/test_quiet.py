"""keystoneauth's logged request and response bodies never reach the log (they carry secrets)."""

from __future__ import annotations

import logging

import pytest

from thermik.clients.quiet import quiet_bodies


def test_bodies_are_dropped_and_the_calls_still_logged(caplog: pytest.LogCaptureFixture) -> None:
    quiet_bodies()
    quiet_bodies()  # once is enough; twice changes nothing
    log = logging.getLogger("keystoneauth.session")
    assert len(log.filters) == 1
    with caplog.at_level(logging.DEBUG, logger="keystoneauth"):
        log.debug("REQ: curl -g -i -X POST http://n/os-keypairs -d '%s'", '{"admin_pass": "s3"}')
        log.debug("RESP: [201] Content-Type: application/json")
        log.debug('RESP BODY: {"private_key": "-----BEGIN RSA PRIVATE KEY-----"}')
        logging.getLogger("keystoneauth.session.body").debug("RESP BODY: {}")
    assert "s3" not in caplog.text
    assert "PRIVATE KEY" not in caplog.text
    assert "POST http://n/os-keypairs -d <body not logged>" in caplog.text
    assert "RESP: [201]" in caplog.text
