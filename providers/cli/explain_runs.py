"""The providers' own answers for ``explain``: each run in this process, as the standalone
commands run them, with the repository's ``agent.hcl`` blocks (or the defaults).

``explain`` judges what is sent by what the providers send, never by a second reading of
the rules: a file is sent when a section of the answer is it. Whether the budget is the
reason comes from the same providers at a larger budget; how much more it needs, from the
smallest budget at which it is sent in full (a search of a few more runs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, Contribution, ModelTarget, Section
from providers.host.agent_config import AgentConfig, ConfigError
from providers.host.decode import DecodeError, decode_block
from providers.host.repo_config import resolve
from providers.registry import PROVIDERS, ProviderEntry, ProviderHandle

AMPLE = 1 << 24
"""A budget past any repository's needs: what would be sent with no budget at all."""
MAX_SEARCHES = 12
"""Items whose missing budget is searched for; the rest are only said to be over it."""


@dataclass(frozen=True)
class Declared:
    """One provider as ``agent.hcl`` declares it: its block decoded, or why it is absent."""

    entry: ProviderEntry
    config: Mapping[str, Any] | None
    """``None``: not declared (nothing of it is sent)."""
    problem: str = ""


def declared_providers(directory: Path) -> tuple[dict[str, Declared], str]:
    """Each of our providers as the repository's ``agent.hcl`` declares it (its defaults
    without one), and a line saying which."""
    try:
        agent = resolve(directory, gate=False).config
    except (ConfigError, OSError, ValueError) as error:
        found = {e.package: Declared(e, {}, f"agent.hcl not read ({error})") for e in PROVIDERS}
        return found, f"agent.hcl: not read ({error}); the providers' defaults"
    return _declarations(agent), (
        "agent.hcl: the repository's" if agent.declared else "agent.hcl: none; the defaults"
    )


def _declarations(agent: AgentConfig) -> dict[str, Declared]:
    found = {entry.package: Declared(entry, None) for entry in PROVIDERS}
    for declaration in agent.providers:
        entry = declaration.ours
        if entry is None or found[entry.package].config is not None:
            continue
        schema = ProviderHandle(entry.factory).load_now().capabilities().config_schema
        try:
            config = decode_block(schema, declaration.block)
        except DecodeError as error:
            found[entry.package] = Declared(entry, {}, f"its block not decoded ({error})")
            continue
        found[entry.package] = Declared(entry, {k: v for k, v in config.items() if v is not None})
    return found


class Runs:
    """The providers' contributions for one working directory and set of touched files,
    each (provider, budget) computed once, each by a fresh provider."""

    def __init__(self, working: Path, files: tuple[str, ...], declared: Mapping[str, Declared]):
        self.working = working
        self.files = files
        self.declared = declared
        self._answers: dict[tuple[str, int], Contribution] = {}
        self.searches = 0

    def budget(self, package: str) -> int:
        config = self.declared[package].config or {}
        budget = config.get("token_budget")
        if isinstance(budget, int | float) and budget > 0:
            return int(budget)
        provider = ProviderHandle(self.declared[package].entry.factory).load_now()
        return provider.capabilities().default_token_budget

    def sections(self, package: str, budget: int | None = None) -> tuple[Section, ...]:
        """What ``package`` sends (nothing when it is not declared)."""
        declared = self.declared[package]
        if declared.config is None:
            return ()
        budget = self.budget(package) if budget is None else budget
        key = (package, budget)
        if key not in self._answers:
            self._answers[key] = self._run(declared, budget)
        return self._answers[key].sections

    def _run(self, declared: Declared, budget: int) -> Contribution:
        provider = ProviderHandle(declared.entry.factory).load_now()
        try:
            provider.configure(dict(declared.config or {}))
            request = ContextRequest(
                token_budget=budget,
                working_directory=str(self.working),
                model_target=ModelTarget("explain"),
                files_touched=self.files,
            )
            return contribute(provider, request, FallbackCounter())
        finally:
            close = getattr(provider, "close", None)
            if callable(close):
                close()

    def needed(self, package: str, shown: Callable[[tuple[Section, ...]], bool]) -> int | None:
        """The smallest budget at which ``shown`` holds of ``package``'s sections, when it
        holds at an ample one (``None``: not even then, or no searches left)."""
        if self.searches >= MAX_SEARCHES or not shown(self.sections(package, AMPLE)):
            return None
        self.searches += 1
        low, high = self.budget(package), self.budget(package) * 2
        while not shown(self.sections(package, high)):
            low, high = high, min(high * 2, AMPLE)
        while low + 1 < high:
            middle = (low + high) // 2
            if shown(self.sections(package, middle)):
                high = middle
            else:
                low = middle
        return high
