"""Which convention files the agent's harness loads at start, shared by the providers that
must agree on it: repo conventions sends them, scoped docs must not send them again.

Codex and Claude Code load convention files from the repository root down to
the working directory (Gemini CLI from the working directory up); so does
repo conventions: the root's files, then each directory's on the way to the
working directory.
"""

from __future__ import annotations

from pathlib import Path

ROOT_CONVENTION_FILES: tuple[str, ...] = (
    "AGENTS.override.md",
    "AGENTS.md",
    "AGENT.md",
    "AGENTS.local.md",
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "CLAUDE.local.md",
    "GEMINI.md",
    "QWEN.md",
    ".junie/AGENTS.md",
    ".junie/guidelines.md",
    "CONVENTIONS.md",
    ".github/copilot-instructions.md",
    ".rules",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
)
"""Repo conventions' default files at the root, in precedence order (its ``paths``).

Where the new names sit, and why: ``AGENT.md`` is the singular spelling Roo Code reads
when there is no ``AGENTS.md`` (and Amp's first name for it), so it follows
``AGENTS.md``; ``AGENTS.local.md`` is Roo Code's personal addition loaded after it, as
``CLAUDE.local.md`` follows ``CLAUDE.md``; ``QWEN.md`` is Qwen Code's ``GEMINI.md``;
``.junie/AGENTS.md`` is Junie's main file and ``.junie/guidelines.md`` its older one;
``.rules`` heads Zed's first-match list, ahead of ``.cursorrules``, ``.windsurfrules``
and ``.clinerules``. A file that repeats another (same inode or text) is sent once."""

NESTED_CONVENTION_NAMES: tuple[str, ...] = (
    "AGENTS.override.md",
    "AGENTS.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "GEMINI.md",
)
"""Looked for in each directory between the root and the working directory."""

HUMAN_CONVENTION_FILES: tuple[str, ...] = (
    "CONTRIBUTING.md",
    ".github/CONTRIBUTING.md",
    "docs/CONTRIBUTING.md",
    "CODECONVENTIONS.md",
    "CODE_STYLE.md",
    "STYLEGUIDE.md",
    "STYLE.md",
    "docs/STYLE.md",
    "DEVELOPMENT.md",
    "HACKING.md",
)
"""Conventions written for people, pointed at (not sent) when no agent file exists."""


def cwd_chain(root: Path, working_directory: Path) -> tuple[str, ...]:
    """Repo-relative directories from just below ``root`` down to ``working_directory``
    (empty when it is the root or not below it)."""
    try:
        rel = working_directory.resolve().relative_to(root)
    except ValueError:
        return ()
    parts = rel.parts
    return tuple("/".join(parts[: i + 1]) for i in range(len(parts)))


def cwd_convention_paths(root: Path, working_directory: Path) -> tuple[str, ...]:
    """The nested convention files repo conventions loads for ``working_directory``."""
    return tuple(
        f"{directory}/{name}"
        for directory in cwd_chain(root, working_directory)
        for name in NESTED_CONVENTION_NAMES
    )
