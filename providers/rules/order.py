"""The stated order of always-on rules: tool by tool, each tool's main rule file first. Pure.

A rule directory often holds one general file and several niche ones
(cline/cline: ``general.md`` beside ``bun-and-node.md`` and
``cline-overview.md``). Name order would put whichever sorts first ahead of
the general one and let it take the budget, so the order is:

1. directories in :data:`~providers.rules.dialects.BUILTIN_RULE_DIRS` order,
   then configured ones by name;
2. within a directory, files directly in it before files in subdirectories;
3. a file whose name says it is the main one (:data:`MAIN_RULE_STEMS`) first,
   unless the directory's names are numbered (``000-core.mdc``): then the
   author has stated the order and name order keeps it;
4. then by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from providers.rules.dialects import BUILTIN_RULE_DIRS

MAIN_RULE_STEMS = frozenset(
    {
        "general",
        "main",
        "index",
        "project",
        "global",
        "core",
        "base",
        "common",
        "conventions",
        "guidelines",
        "rules",
        "instructions",
        "agents",
        "readme",
    }
)
"""File names (without suffix, any case) that mark a directory's main rule file."""


def _stem(name: str) -> str:
    return name.split(".", 1)[0].lower()


def stated_order(paths: Iterable[str], directories: Sequence[str]) -> list[str]:
    """``paths`` (repo-relative rule files) in the stated order; ``directories`` are the
    rule directories in precedence order (a path outside all of them sorts last)."""

    def directory_of(path: str) -> tuple[int, str]:
        for i, directory in enumerate(directories):
            if path.startswith(directory + "/"):
                return i, directory
        return len(directories), ""

    items = list(paths)
    numbered = {directory_of(p)[1] for p in items if PurePosixPath(p).name[:1].isdigit()}

    def key(path: str) -> tuple[int, int, int, str]:
        index, directory = directory_of(path)
        rest = path[len(directory) + 1 :] if directory else path
        nested = int("/" in rest)
        main = 0
        if directory not in numbered and _stem(PurePosixPath(rest).name) in MAIN_RULE_STEMS:
            main = -1
        return index, nested, main, rest

    return sorted(items, key=key)


def precedence(directories: Iterable[str]) -> list[str]:
    """Rule directories in stated order: the built-in ones as listed, then others by name."""
    builtin = [d for d, _ in BUILTIN_RULE_DIRS]
    given = set(directories)
    return [d for d in builtin if d in given] + sorted(given - set(builtin))


def in_builtin_rule_dir(path: str) -> bool:
    """Whether ``path`` lies in one of the tools' own rule directories (those every
    provider reading rules reads, whatever the configured extra directories)."""
    return any(path.startswith(directory + "/") for directory, _ in BUILTIN_RULE_DIRS)
