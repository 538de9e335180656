"""Issue 13 item 7: the working directory counts. Repo conventions loads the convention
files from the root down to the working directory, root first, as Codex and Claude Code
do; scoped docs does not send them again. Item 6: with no agent convention file, one line
names the conventions written for people."""

from __future__ import annotations

from pathlib import Path

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.scoped_docs.provider import ScopedDocsProvider
from tests.support.files import write


def labels(provider: object, wd: Path, touched: tuple[str, ...] = ()) -> list[str]:
    request = ContextRequest(4000, str(wd), ModelTarget("m"), files_touched=touched)
    return [s.label for s in contribute(provider, request, FallbackCounter()).sections]  # type: ignore[arg-type]


def test_conventions_from_the_root_down_to_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "GEMINI.md", "# root\n")
    write(tmp_path, "packages/GEMINI.md", "# packages\n")
    write(tmp_path, "packages/core/GEMINI.md", "# core\n")
    write(tmp_path, "packages/cli/GEMINI.md", "# cli\n")
    provider = RepoConventionsProvider()
    provider.configure({})
    assert labels(provider, tmp_path / "packages" / "core") == [
        "GEMINI.md",
        "packages/GEMINI.md",
        "packages/core/GEMINI.md",
    ]
    assert labels(provider, tmp_path) == ["GEMINI.md"]
    scoped = ScopedDocsProvider(watcher_factory=None)
    scoped.configure({"watch": False})
    try:
        shown = labels(scoped, tmp_path / "packages" / "core", ("x.ts", "../cli/y.ts"))
    finally:
        scoped.close()
    assert any(label.startswith("packages/cli/GEMINI.md") for label in shown)
    assert not any(
        label.startswith(("packages/core/GEMINI.md", "packages/GEMINI.md")) for label in shown
    )


def test_without_agent_files_the_human_conventions_are_named(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "CONTRIBUTING.md", "# How we work\n")
    write(tmp_path, "docs/STYLE.md", "# Style\n")
    provider = RepoConventionsProvider()
    provider.configure({})
    request = ContextRequest(4000, str(tmp_path), ModelTarget("m"))
    (section,) = contribute(provider, request, FallbackCounter()).sections
    assert "conventions for people: CONTRIBUTING.md, docs/STYLE.md" in section.text
    assert "How we work" not in section.text  # named, not sent
