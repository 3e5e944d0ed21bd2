"""What every test shares: the signals the processes the tests start can be interrupted with."""

from __future__ import annotations

import signal

# A suite started in the background by a non-interactive shell inherits SIGINT ignored, and
# so would every process it starts: the tests that interrupt a command with Ctrl-C would wait
# for ever. An ignored signal stays ignored across exec, a handled one is reset to default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
