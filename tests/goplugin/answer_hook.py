"""A provider for the adapter's tests: it writes down when it collects and when it is
told its answer went out (``answer_sent``, which sleeps first to show it is not awaited)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.request import Turn
from providers.core.types import (
    Capabilities,
    Contribution,
    Identity,
    Section,
    Stability,
)

HOOK_DELAY_S = 1.0


class HookProvider:
    def __init__(self) -> None:
        self._events: Path | None = None

    def identity(self) -> Identity:
        return Identity("answer-hook", "0.0.0", "tests/goplugin/answer_hook.py")

    def capabilities(self) -> Capabilities:
        return Capabilities(default_token_budget=100, stability=Stability.DYNAMIC, config_schema=())

    def configure(self, config: Mapping[str, Any]) -> None:
        pass

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        self._events = turn.working_directory / "events"
        self._write("collect")
        text = "hook\n"
        return Contribution((Section("hook", text, counter.count(text), Stability.DYNAMIC),))

    def answer_sent(self) -> None:
        time.sleep(HOOK_DELAY_S)
        self._write("answer_sent")

    def _write(self, event: str) -> None:
        assert self._events is not None
        with self._events.open("a") as handle:
            handle.write(event + "\n")
