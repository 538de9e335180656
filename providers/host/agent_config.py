"""agent.hcl as the kernel reads it: required_providers, provider blocks, dev_overrides.

Declaration order (the chain order) is the order of the ``provider`` blocks,
then any required provider without a block. ``dev_overrides`` maps a local
name to an executable; the kernel reads it from its global config.hcl, and so
do we (``$XDG_CONFIG_HOME/agent/config.hcl``), plus from agent.hcl itself for
convenience. Without an override, one of our published sources maps to our
installed console script (``.../repo-conventions`` -> ``context-repo-conventions``).
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
from providers.registry import by_published


class ConfigError(ValueError):
    """agent.hcl cannot be used as written."""


@dataclass(frozen=True)
class ProviderDeclaration:
    local_name: str
    source: str
    version: str
    block: Mapping[str, Any]


@dataclass(frozen=True)
class AgentConfig:
    path: Path
    providers: tuple[ProviderDeclaration, ...]
    dev_overrides: Mapping[str, str] = field(default_factory=dict)


def _load_hcl(path: Path) -> dict[str, Any]:
    import hcl2
    from hcl2 import SerializationOptions

    options = SerializationOptions(
        with_comments=False, explicit_blocks=False, strip_string_quotes=True
    )
    try:
        with path.open(encoding="utf-8") as handle:
            data: dict[str, Any] = hcl2.load(handle, serialization_options=options)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from exc
    except Exception as exc:  # python-hcl2 raises lark errors of many kinds
        raise ConfigError(f"{path}: not valid HCL ({exc})") from exc
    return data


def _merged(blocks: Any) -> dict[str, Any]:
    """hcl2 gives each top-level block as a list of one-key dicts; merge them in order."""
    merged: dict[str, Any] = {}
    for block in blocks if isinstance(blocks, list) else [blocks]:
        if isinstance(block, Mapping):
            merged.update(block)
    return merged


def load_agent_config(path: Path, *, global_config: Path | None = None) -> AgentConfig:
    data = _load_hcl(path)
    required = _merged(data.get("required_providers", []))
    blocks = _merged(data.get("provider", []))
    overrides: dict[str, str] = {}
    global_path = global_config or _default_global_config()
    if global_path is not None and global_path.is_file():
        overrides.update(_merged(_load_hcl(global_path).get("dev_overrides", [])))
    overrides.update(_merged(data.get("dev_overrides", [])))
    for name in blocks:
        if name not in required:
            raise ConfigError(f'provider "{name}" has no entry in required_providers')
    order = [*blocks, *(n for n in required if n not in blocks)]
    declarations = []
    for name in order:
        entry = required[name]
        if not isinstance(entry, Mapping) or not isinstance(entry.get("source"), str):
            raise ConfigError(f"required_providers.{name} needs a source")
        declarations.append(
            ProviderDeclaration(
                name, entry["source"], str(entry.get("version", "")), dict(blocks.get(name, {}))
            )
        )
    return AgentConfig(path, tuple(declarations), {k: str(v) for k, v in overrides.items()})


def _default_global_config() -> Path | None:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "agent" / "config.hcl"


def resolve_command(
    declaration: ProviderDeclaration, overrides: Mapping[str, str]
) -> list[str] | None:
    """The executable to launch, or None when nothing installed provides it."""
    if declaration.local_name in overrides:
        return [overrides[declaration.local_name]]
    head, _, tail = declaration.source.rpartition("/")
    entry = by_published(tail)
    if head != SOURCE or entry is None:
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
