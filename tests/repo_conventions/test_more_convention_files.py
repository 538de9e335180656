"""Issue 23 item 3: the convention files of Junie, Roo Code, Qwen Code and Zed are read,
in the precedence each tool gives them (``DEFAULT_PATHS``).

Layouts are real repositories' trees (paths only; the texts are ours):
Zaoqu-Liu/mbti-typing-skill keeps one file per tool at its root (``.rules``,
``.junie/AGENTS.md``, ``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md``, ``CONVENTIONS.md``,
``.github/copilot-instructions.md``); zed-industries/zed keeps ``.rules`` beside
``AGENTS.md``; AlexPaillares/symfony-junie-demo keeps ``.junie/guidelines.md``.
"""

from __future__ import annotations

import os
from pathlib import Path

from providers.core.provider import contribute
from providers.repo_conventions.discover import DEFAULT_PATHS
from providers.repo_conventions.provider import RepoConventionsProvider
from tests.support.files import make_repo, write
from tests.support.requests import COUNTER, labels, request


def ask(root: Path) -> list[str]:
    provider = RepoConventionsProvider()
    provider.configure({})
    return labels(contribute(provider, request(root, budget=8000), COUNTER))


def test_each_tools_file_has_its_place_in_the_precedence() -> None:
    """AGENT.md and AGENTS.local.md follow AGENTS.md (Roo Code), QWEN.md follows GEMINI.md,
    Junie's files follow the other tools' main files, ``.rules`` heads Zed's list."""
    order = list(DEFAULT_PATHS)
    for earlier, later in (
        ("AGENTS.md", "AGENT.md"),
        ("AGENT.md", "AGENTS.local.md"),
        ("AGENTS.local.md", "CLAUDE.md"),
        ("GEMINI.md", "QWEN.md"),
        ("QWEN.md", ".junie/AGENTS.md"),
        (".junie/AGENTS.md", ".junie/guidelines.md"),
        (".github/copilot-instructions.md", ".rules"),
        (".rules", ".cursorrules"),
    ):
        assert order.index(earlier) < order.index(later), (earlier, later)


def test_a_repository_with_every_tools_file_sends_each_once_in_order(tmp_path: Path) -> None:
    """Zaoqu-Liu/mbti-typing-skill's root: each tool's file is its own section."""
    root = make_repo(tmp_path)
    for rel, text in (
        ("AGENTS.md", "# Agents\n\nShared rules.\n"),
        ("CLAUDE.md", "# Claude\n\nClaude notes.\n"),
        ("GEMINI.md", "# Gemini\n\nGemini notes.\n"),
        (".junie/AGENTS.md", "# Junie\n\nJunie notes.\n"),
        ("CONVENTIONS.md", "# Conventions\n\nAider notes.\n"),
        (".github/copilot-instructions.md", "Copilot notes.\n"),
        (".rules", "Zed notes.\n"),
    ):
        write(root, rel, text)
    assert ask(root) == [
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        ".junie/AGENTS.md",
        "CONVENTIONS.md",
        ".github/copilot-instructions.md",
        ".rules",
    ]


def test_zeds_rules_file_behind_agents_md_is_sent_once(tmp_path: Path) -> None:
    """zed-industries/zed: ``.rules`` with ``AGENTS.md`` beside it; when one links to the
    other (the same file), it is one section, under the name that comes first."""
    root = make_repo(tmp_path)
    write(root, ".rules", "# Zed\n\nRun the tests with cargo.\n")
    os.symlink(".rules", root / "AGENTS.md")
    assert ask(root) == ["AGENTS.md"]


def test_junies_older_guidelines_file_and_the_local_and_singular_names(tmp_path: Path) -> None:
    """AlexPaillares/symfony-junie-demo: ``.junie/guidelines.md`` alone is read; Roo Code's
    ``AGENT.md`` and ``AGENTS.local.md`` and Qwen Code's ``QWEN.md`` too."""
    root = make_repo(tmp_path)
    write(root, ".junie/guidelines.md", "# Guidelines\n\nSymfony 7.\n")
    write(root, "AGENT.md", "# Agent\n\nSingular.\n")
    write(root, "AGENTS.local.md", "# Mine\n\nPersonal.\n")
    write(root, "QWEN.md", "# Qwen\n\nQwen notes.\n")
    assert ask(root) == ["AGENT.md", "AGENTS.local.md", "QWEN.md", ".junie/guidelines.md"]
