"""Tests of thermik.rpc (imported first: it imports oslo.messaging quietly)."""

import thermik.rpc  # noqa: F401
