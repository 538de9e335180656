"""A provider whose turn stays busy in pure Python (as an @import fan-out once did for
minutes): for the host-death test, which needs a turn that will not end by itself."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.request import Turn
from providers.core.types import Capabilities, Contribution, Identity, Stability

BUSY_S = 60.0


class BusyProvider:
    def identity(self) -> Identity:
        return Identity("busy", "0.0.0", "tests/reliability/busy_provider.py")

    def capabilities(self) -> Capabilities:
        return Capabilities(default_token_budget=100, stability=Stability.DYNAMIC, config_schema=())

    def configure(self, config: Mapping[str, Any]) -> None:
        pass

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        (turn.working_directory / "busy").write_text("busy\n")  # the test's cue
        end = time.monotonic() + BUSY_S
        total = 0
        while time.monotonic() < end:  # holds the GIL but for the interpreter's switches
            total += sum(range(10_000))
        return Contribution()
