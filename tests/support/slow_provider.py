"""A provider for the fail-open tests (the host's ``run_each``, the bridge): a real plugin
(our go-plugin server) whose Contribute hangs. Each call writes one line to the file
named by ``SLOW_PROVIDER_LOG`` (the work budget it was given, from the deadline the host
sent), then sleeps ``SLOW_PROVIDER_SLEEP_S`` seconds (60 when unset) before answering."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.request import Turn
from providers.core.types import Capabilities, Contribution, Identity, Section, Stability

ENV_LOG = "SLOW_PROVIDER_LOG"
ENV_SLEEP = "SLOW_PROVIDER_SLEEP_S"
MARKER = "Slow provider marker S1."


class SlowProvider:
    def identity(self) -> Identity:
        return Identity("slow", "0.0.0", "tests/support/slow_provider.py")

    def capabilities(self) -> Capabilities:
        return Capabilities(default_token_budget=100, stability=Stability.DYNAMIC, config_schema=())

    def configure(self, config: Mapping[str, Any]) -> None:
        pass

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        log = os.environ.get(ENV_LOG)
        if log:
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(f"{turn.deadline.remaining():.3f}\n")
        time.sleep(float(os.environ.get(ENV_SLEEP) or 60))
        text = MARKER + "\n"
        return Contribution((Section("slow", text, counter.count(text), Stability.DYNAMIC),))


def plugin_script(path: Path, log: Path, sleep_s: float = 60) -> Path:
    """An executable at ``path`` that serves :class:`SlowProvider` (for ``dev_overrides``)."""
    root = Path(__file__).resolve().parents[2]
    code = (
        f"import os, sys; sys.path.insert(0, {str(root)!r});"
        " from providers.goplugin.server import serve;"
        " raise SystemExit(serve('tests.support.slow_provider:SlowProvider', os.environ))"
    )
    environment = f"{ENV_LOG}='{log}' {ENV_SLEEP}={sleep_s}"
    path.write_text(
        f"#!/bin/sh\n{environment} exec '{sys.executable}' -c \"{code}\"\n", encoding="utf-8"
    )
    path.chmod(0o755)
    return path
