"""The one reading of a repository's ``agent.hcl`` by our own hosts (the bridge's
background process, ``preview``, ``explain``): where it is, whether it may be used, and
what of it.

- Where: ``agent.hcl`` of the directory itself, else of its repository's root; neither:
  the four providers with their defaults.
- Whether (the bridge only, ``gate=True``): the hooks and the MCP server start in every
  repository a person opens, so a repository's ``agent.hcl`` is used only once the user
  trusts it (:mod:`providers.host.trust`); until then the four providers with their
  defaults. A repository owned by another user gets nothing (``served`` is False).
  ``preview`` and ``explain`` run because the user asked, in a directory they named, so
  they use ``agent.hcl`` untrusted, within the two rules below.
- What (every host): an attribute that names a program or a place outside the repository
  (``ConfigAttribute.user_only``: git status's ``git``, the ``import_allow`` lists) is
  refused from ``agent.hcl``; only the user's own ``config.hcl``
  (:func:`~providers.host.agent_config.user_config_path`) sets it, for a provider of that
  local name or package. At most :data:`MAX_DECLARATIONS` providers are brought up.

Under the PluggableHarness kernel none of this applies: the kernel reads the user's
``agent.hcl`` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from providers.host.agent_config import (
    AgentConfig,
    ProviderDeclaration,
    default_agent_config,
    load_agent_config,
    load_user_blocks,
    user_config_path,
)
from providers.host.trust import AGENT_HCL, TrustStore, Verdict
from providers.repository.layout import dot_git_above

MAX_DECLARATIONS = 8
"""Providers one repository's ``agent.hcl`` may bring up (each is a process or a set of
watchers); the rest are refused with a note."""


@dataclass(frozen=True)
class Resolved:
    config: AgentConfig
    notes: tuple[str, ...] = ()
    """What was not used and why (the log, ``doctor``, a preview's first lines)."""
    verdict: Verdict | None = None
    """The trust verdict (the bridge only)."""

    @property
    def served(self) -> bool:
        return self.verdict is None or self.verdict.served

    @property
    def source_line(self) -> str:
        """Which providers these are, in a few words."""
        if self.config.declared:
            return f"providers: {self.config.path}"
        if self.verdict is not None and self.verdict.note():
            return "providers: the four defaults (agent.hcl not trusted)"
        return "providers: no agent.hcl here, so the four providers with their defaults"


def agent_hcl_place(directory: Path) -> Path:
    """The directory whose ``agent.hcl`` applies: ``directory``'s own, else its
    repository root's; ``directory`` when neither has one."""
    dot_git = dot_git_above(directory)
    for place in (directory, dot_git.parent if dot_git is not None else None):
        if place is not None and (place / AGENT_HCL).is_file():
            return place
    return directory


def resolve(
    directory: Path,
    *,
    gate: bool,
    store: TrustStore | None = None,
    user_config: Path | None = None,
) -> Resolved:
    """The providers our host brings up for ``directory``; raises ``ConfigError`` for an
    ``agent.hcl`` that cannot be read (the caller decides whether that falls back)."""
    place = agent_hcl_place(directory)
    notes: list[str] = []
    verdict = (store or TrustStore()).verdict(place) if gate else None
    if verdict is not None and verdict.note():
        notes.append(verdict.note())
    usable = (place / AGENT_HCL).is_file() and (verdict is None or verdict.uses_agent_hcl)
    config = load_agent_config(place / AGENT_HCL) if usable else default_agent_config(place)
    if len(config.providers) > MAX_DECLARATIONS:
        dropped = config.providers[MAX_DECLARATIONS:]
        notes.append(
            f"{config.path}: {len(config.providers)} providers declared, at most "
            f"{MAX_DECLARATIONS} are brought up; left out: "
            + ", ".join(d.local_name for d in dropped)
        )
        config = replace(config, providers=config.providers[:MAX_DECLARATIONS])
    user = load_user_blocks(user_config or user_config_path())
    declarations = []
    for declaration in config.providers:
        block, refused = _vetted_block(declaration, user)
        if refused:
            notes.append(
                f'provider "{declaration.local_name}": {", ".join(refused)} refused from '
                f"{config.path} (it names a program or a place outside the repository); "
                f"set it in {user_config or user_config_path()}"
            )
        declarations.append(replace(declaration, block=block))
    return Resolved(replace(config, providers=tuple(declarations)), tuple(notes), verdict)


def _vetted_block(
    declaration: ProviderDeclaration, user: Mapping[str, Mapping[str, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """The block without what only the user may set, with the user's own block over it;
    and the names refused."""
    entry = declaration.ours
    block = dict(declaration.block)
    refused: list[str] = []
    if entry is not None:
        user_only = {a.name for a in entry.schema() if a.user_only}
        refused = sorted(name for name in block if name in user_only)
        for name in refused:
            del block[name]
    mine = user.get(declaration.local_name)
    if mine is None and entry is not None:
        mine = user.get(entry.package)
    block.update(mine or {})
    return block, refused
