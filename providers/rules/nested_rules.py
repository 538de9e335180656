"""Rule folders below the root (``packages/web/.claude/rules/``), applied to their own subtree.

Claude Code loads a package's ``.claude/rules/`` the way it loads that package's
``CLAUDE.md``: when a file below the package is read, and it reads the rules' ``paths``
relative to the package (the folder holding ``.claude/``). Cursor's nested
``.cursor/rules/`` attach, its documentation says, when files in their directory are
referenced. So a nested rule that always applies applies to its package's subtree, a
glob rule's patterns are read under the package, and one the model asks for by
description is listed as at the root.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from providers.rules.dialects import Dialect
from providers.rules.flavours import Flavour
from providers.rules.globs import GlobError, GlobSet
from providers.rules.load import LoadResult, Problem, Reader, Rule, load_rule

NESTED_RULE_DIRS: tuple[tuple[str, str], ...] = (
    (".claude/rules", "claude"),
    (".cursor/rules", "cursor"),
)
"""Rule folders looked for in every folder between a touched file and the root."""

_FLOATING = (Flavour.GITIGNORE, Flavour.VSCODE, Flavour.CLAUDE)
"""Flavours where a pattern without a slash matches a name at any depth."""


def rebase(patterns: tuple[str, ...], base: str, flavour: Flavour) -> tuple[str, ...]:
    """``patterns``, written relative to ``base``, made repo-relative in ``flavour``."""
    rebased: list[str] = []
    for pattern in patterns:
        negated = pattern.startswith("!")
        body = pattern[1:] if negated else pattern
        if body.startswith("/"):
            body = f"{base}{body}"
        elif body.startswith("**") or (flavour in _FLOATING and "/" not in body.rstrip("/")):
            body = f"{base}/**/{body}" if not body.startswith("**") else f"{base}/{body}"
        else:
            body = f"{base}/{body}"
        rebased.append(f"!{body}" if negated else body)
    return tuple(rebased)


def load_in_subtree(
    root: Path, rel: str, dialect: Dialect, base: str, reader: Reader
) -> LoadResult:
    """The rule at ``rel`` in the rule folder of ``base`` (a folder below the root),
    scoped to ``base``'s subtree."""
    loaded = load_rule(root, rel, dialect, reader)
    if not isinstance(loaded, Rule) or loaded.on_request:
        return loaded
    if loaded.always:
        return replace(loaded, always=False, subtree=base)
    if loaded.globs is None:
        return loaded
    try:
        globs = GlobSet(rebase(loaded.globs.written, base, dialect.flavour), dialect.flavour)
    except GlobError as exc:
        return Problem(rel, f"{rel}: not applied, {exc}", loaded.key)
    return replace(loaded, globs=globs)


def owner(rel: str, folders: tuple[str, ...], *, loosely: bool = False) -> tuple[str, str] | None:
    """(the folder below the root, the rule folder) when ``rel`` lies in a nested rule
    folder: ``("packages/web", ".claude/rules")`` for ``packages/web/.claude/rules/a.md``.
    ``loosely``: also when ``rel`` is the rule folder or any folder on its way
    (``packages/web/.claude``), as a change there may add or remove rules."""
    padded = f"/{rel}/"
    for folder in folders:
        marker = f"/{folder.split('/', 1)[0]}/" if loosely else f"/{folder}/"
        at = padded.find(marker)
        if at > 0 and (loosely or len(padded) > at + len(marker)):
            return padded[1:at], folder
    return None
