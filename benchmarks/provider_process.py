"""A provider plugin launched through the reference host, timed per Contribute."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.core.identity import SOURCE
from providers.goplugin.convert import config_to_proto
from providers.host.agent_config import ProviderDeclaration, resolve_command
from providers.host.launcher import PluginProcess
from providers.registry import by_published


def command(published: str) -> list[str]:
    """The installed console script of the registry's provider ``published``."""
    entry = by_published(published)
    if entry is None:
        raise SystemExit(f"no provider {published!r} in providers/registry.py")
    declaration = ProviderDeclaration(published, f"{SOURCE}/{published}", "", {})
    found = resolve_command(declaration, {})
    if found is None:
        raise SystemExit(f"{entry.script} is not installed (pip install -e .)")
    return found


SETTLED_S = 0.003
"""A turn this fast did not recompute (a recompute lists or runs git: 5 ms and more at 1k
files)."""


class TimedProvider:
    def __init__(
        self,
        published: str,
        config: dict[str, object] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """``env``: variables added to the plugin's environment (a cache directory)."""
        self.plugin = PluginProcess.launch(
            command(published), local_name=published, env_overrides=env
        )
        self.plugin.stub.Describe(context_pb2.DescribeRequest(), timeout=30)
        self.plugin.stub.Configure(config_to_proto(dict(config or {})), timeout=30)

    def request(
        self, repo: Path, budget: int, touched: list[str] | None = None
    ) -> context_pb2.ContextRequest:
        return context_pb2.ContextRequest(
            token_budget=budget,
            working_directory=str(repo),
            model_target=model_pb2.ModelTarget(id="bench-model"),
            files_touched=touched or [],
        )

    def contribute(
        self, request: context_pb2.ContextRequest
    ) -> tuple[float, context_pb2.ContextContribution]:
        started = time.perf_counter()
        reply = self.plugin.stub.Contribute(request, timeout=300)
        return time.perf_counter() - started, reply

    def close(self) -> None:
        self.plugin.close()

    def settle(
        self, request: context_pb2.ContextRequest, floor: float, limit: float = 60.0
    ) -> float:
        """Turns until the provider answers warm (its watcher is in place); seconds taken.

        A large tree's recursive watch takes seconds to set up; until then every
        turn recomputes, as it must. Warm figures are taken after this. A turn after
        0.1 s idle can take a millisecond or two more than a busy one (the machine's
        wake-up, not ours): anything under ``SETTLED_S`` counts as answered warm.
        """
        started = time.perf_counter()
        fast = 0
        while time.perf_counter() - started < limit and fast < 3:
            took, _ = self.contribute(request)
            fast = fast + 1 if took < max(5 * floor, SETTLED_S) else 0
            time.sleep(0.1)
        return time.perf_counter() - started


def cold_contribute(
    published: str,
    repo: Path,
    budget: int,
    floor: Callable[[], float],
    launches: int = 5,
    env: Callable[[], dict[str, str]] | None = None,
) -> tuple[float, float]:
    """Median first Contribute on a freshly launched (and configured) process, and the
    median of ``floor()`` (seconds) measured right before each one: a shared machine's
    load drifts between launches, and each pair sees the same load. ``env()`` gives each
    process's added environment (a history cache of its own, or a shared one)."""
    colds: list[float] = []
    floors: list[float] = []
    for _ in range(launches):
        provider = TimedProvider(published, env=env() if env is not None else None)
        try:
            floors.append(floor())
            took, _ = provider.contribute(provider.request(repo, budget))
        finally:
            provider.close()
        colds.append(took)
    return statistics.median(colds), statistics.median(floors)
