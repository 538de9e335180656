"""agent.hcl as the kernel reads it: required_providers, provider blocks, dev_overrides.

The kernel's loader (``internal/config/load.go``, ``provider.go``) accepts a
closed set of top-level blocks and no top-level attributes, rejects a second
``provider "x"`` or ``required_providers`` block, and requires both
``source`` and ``version`` of every required provider; so do we, with its
wording. Declaration order (the chain order) is the order of the ``provider``
blocks, then any required provider without a block. ``dev_overrides`` maps a
local name to an executable and lives only in the global config.hcl
(``$XDG_CONFIG_HOME/agent/config.hcl``; in agent.hcl it is an unsupported
block, as in the kernel). Without an override, one of our published sources
maps to our installed console script (``.../repo-conventions`` ->
``context-repo-conventions``). The provider blocks are decoded against each
plugin's schema at bring-up (:mod:`providers.host.decode`).
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from providers.core.identity import SOURCE
from providers.host.decode import BLOCK_MARK
from providers.registry import PROVIDERS, ProviderEntry, by_published


class ConfigError(ValueError):
    """agent.hcl cannot be used as written."""


@dataclass(frozen=True)
class ProviderDeclaration:
    local_name: str
    source: str
    version: str
    block: Mapping[str, Any]

    @property
    def ours(self) -> ProviderEntry | None:
        """Our provider that ``source`` names (one of our published sources), else None:
        the one "is this ours" check."""
        head, _, tail = self.source.rpartition("/")
        return by_published(tail) if head == SOURCE else None


@dataclass(frozen=True)
class AgentConfig:
    path: Path
    providers: tuple[ProviderDeclaration, ...]
    dev_overrides: Mapping[str, str] = field(default_factory=dict)
    declared: bool = True
    """False: there is no agent.hcl at ``path``; these are the bundle's defaults."""


def _load_hcl(path: Path) -> dict[str, Any]:
    import hcl2
    from hcl2 import SerializationOptions

    options = SerializationOptions(
        with_comments=False, explicit_blocks=True, strip_string_quotes=True
    )
    try:
        with path.open(encoding="utf-8") as handle:
            data: dict[str, Any] = hcl2.load(handle, serialization_options=options)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from exc
    except Exception as exc:  # python-hcl2 raises lark errors of many kinds
        raise ConfigError(f"{path}: not valid HCL ({exc})") from exc
    return data


_AGENT_BLOCKS = {
    "required_providers": 0,
    "provider": 1,
    "policy": 1,
    "agent_profile": 1,
    "hook": 1,
    "settings": 0,
}
"""The kernel's closed set of top-level blocks (``internal/config/load.go``), with their
label counts. Several ``policy`` and ``hook`` blocks may share a label; the others not."""
_REPEATABLE = ("policy", "hook")
_GLOBAL_BLOCKS = {"dev_overrides": 0, "registry_mirror": 0}
"""The global config.hcl's blocks (``internal/registry/globalconfig.go``)."""


def _is_block(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value.get(BLOCK_MARK))


def _blocks(path: Path, data: Mapping[str, Any], allowed: Mapping[str, int]) -> dict[str, Any]:
    """The top-level blocks by type as ``[(label, body)]``, checked as the kernel checks them."""
    found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for kind, value in data.items():
        items = value if isinstance(value, list) else [value]
        if (
            not items
            or not all(isinstance(item, Mapping) for item in items)
            or not any(
                _is_block(item) or (len(item) == 1 and _is_block(next(iter(item.values()))))
                for item in items
            )
        ):
            raise ConfigError(
                f'{path}: Unsupported argument; An argument named "{kind}" is not expected here.'
            )
        if kind not in allowed:
            raise ConfigError(
                f'{path}: Unsupported block type; Blocks of type "{kind}" are not expected here.'
            )
        labels = allowed[kind]
        for item in items:
            labelled = not _is_block(item)
            if labels and not labelled:
                raise ConfigError(
                    f"{path}: Missing name for {kind}; All {kind} blocks must have 1 labels."
                )
            if not labels and labelled:
                raise ConfigError(f"{path}: Extraneous label for {kind}; No labels are expected.")
            label, body = next(iter(item.items())) if labelled else ("", item)
            seen = found.setdefault(kind, [])
            if kind not in _REPEATABLE and any(other == label for other, _ in seen):
                raise ConfigError(
                    f'config: {kind} "{label}": config: duplicate block'
                    if labels
                    else f"config: config: duplicate block: {kind}"
                )
            seen.append((label, {k: v for k, v in body.items() if k != BLOCK_MARK}))
    return found


def _required(path: Path, body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """``required_providers`` entries; each needs a string ``source`` and ``version``."""
    entries: dict[str, Mapping[str, Any]] = {}
    for name, entry in body.items():
        if not isinstance(entry, Mapping) or _is_block(entry):
            raise ConfigError(f'config: required_providers: "{name}": invalid attribute value')
        for field_name in ("source", "version"):
            value = entry.get(field_name)
            if value is None:
                raise ConfigError(
                    f'config: required_providers: "{name}": {field_name}: '
                    "config: missing required field"
                )
            if not isinstance(value, str):
                raise ConfigError(
                    f'config: required_providers: "{name}": {field_name}: must be a string'
                )
        entries[name] = entry
    return entries


def load_agent_config(path: Path, *, global_config: Path | None = None) -> AgentConfig:
    """agent.hcl as the kernel's loader reads it; ``dev_overrides`` from the global config."""
    blocks = _blocks(path, _load_hcl(path), _AGENT_BLOCKS)
    required: dict[str, Mapping[str, Any]] = {}
    for _, body in blocks.get("required_providers", []):
        required.update(_required(path, body))
    provider_blocks = dict(blocks.get("provider", []))
    for name in provider_blocks:
        if name not in required:
            raise ConfigError(f'provider "{name}" has no entry in required_providers')
    overrides = load_dev_overrides(global_config or _default_global_config())
    order = [*provider_blocks, *(n for n in required if n not in provider_blocks)]
    declarations = [
        ProviderDeclaration(
            name,
            str(required[name]["source"]),
            str(required[name]["version"]),
            provider_blocks.get(name, {}),
        )
        for name in order
    ]
    return AgentConfig(path, tuple(declarations), overrides)


DEFAULT_VERSION = "~> 0.1"


def default_agent_config(directory: Path, *, global_config: Path | None = None) -> AgentConfig:
    """The four providers with their defaults, static before dynamic, as a repository with
    no ``agent.hcl`` of its own gets them (nothing is written into it)."""
    declarations = tuple(
        ProviderDeclaration(entry.package, f"{SOURCE}/{entry.published}", DEFAULT_VERSION, {})
        for entry in PROVIDERS
    )
    overrides = load_dev_overrides(global_config or _default_global_config())
    return AgentConfig(directory / "agent.hcl", declarations, overrides, declared=False)


def load_dev_overrides(path: Path | None) -> dict[str, str]:
    """``dev_overrides { name = "/path/to/binary" }`` from the global config.hcl, if any."""
    if path is None or not path.is_file():
        return {}
    blocks = _blocks(path, _load_hcl(path), _GLOBAL_BLOCKS)
    overrides: dict[str, str] = {}
    for _, body in blocks.get("dev_overrides", []):  # the last block wins, as upstream
        for name, value in body.items():
            if not isinstance(value, str):
                raise ConfigError(f'registry: dev_overrides: "{name}": invalid attribute value')
            overrides[name] = value
    return overrides


def load_user_blocks(path: Path | None) -> dict[str, dict[str, Any]]:
    """``provider "NAME" { ... }`` blocks of the user's own context-providers config
    (:func:`user_config_path`): attributes every repository gets, the ``user_only`` ones
    (a program, a place outside the repository) included, which no repository may set."""
    if path is None or not path.is_file():
        return {}
    blocks = _blocks(path, _load_hcl(path), {"provider": 1})
    return {name: dict(body) for name, body in blocks.get("provider", [])}


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/context-providers/config.hcl`` (``~/.config/...``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "context-providers" / "config.hcl"


def _default_global_config() -> Path | None:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "agent" / "config.hcl"


def resolve_command(
    declaration: ProviderDeclaration, overrides: Mapping[str, str]
) -> list[str] | None:
    """The executable to launch, or None when nothing installed provides it."""
    if declaration.local_name in overrides:
        return [overrides[declaration.local_name]]
    entry = declaration.ours
    if entry is None:
        return None
    script = entry.script
    search = os.pathsep.join(
        [sysconfig.get_path("scripts"), os.path.dirname(sys.executable), os.environ.get("PATH", "")]
    )
    found = shutil.which(script, path=search)
    return [found] if found else None


def budget_sum_warning(budgets: Sequence[int], ceilings: Sequence[int]) -> str | None:
    """context-data-types.md, Budget mechanics: caps that could exceed the smallest ceiling."""
    if not ceilings:
        return None
    total, smallest = sum(budgets), min(ceilings)
    if total > smallest:
        return (
            f"the context providers' token budgets sum to {total}, more than the smallest "
            f"model effective ceiling ({smallest})"
        )
    return None


def stability_order_warning(order: Sequence[tuple[str, str]]) -> str | None:
    """context-data-types.md, Stability hint: a dynamic provider declared before a static one."""
    first_dynamic = next((name for name, s in order if s == "dynamic"), None)
    if first_dynamic is None:
        return None
    seen_dynamic = False
    for name, stability in order:
        if stability == "dynamic":
            seen_dynamic = True
        elif stability == "static" and seen_dynamic:
            return (
                f'dynamic provider "{first_dynamic}" is declared before static provider '
                f'"{name}": every change in its content invalidates the prompt-cache prefix '
                "of the providers after it"
            )
    return None
