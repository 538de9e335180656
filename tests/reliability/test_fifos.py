"""Issue 15 item 1: a FIFO where a file is read never blocks a turn. Only regular files are
read (checked before opening, opened non-blocking), and git, which opens its ignore files
with a blocking open, is stopped as soon as it waits on one (context-conformance.md:
a turn answers, classified, never hangs)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.core.budget import FallbackCounter
from providers.core.errors import ErrorCategory, ProviderError
from providers.core.provider import contribute
from providers.core.types import ContextRequest, Contribution, ModelTarget
from providers.file_tree.provider import FileTreeProvider
from providers.git_status.provider import GitStatusProvider
from providers.repository.files import list_repo_files
from providers.repository.gitexec import GitBlocked, GitRunner
from providers.scoped_docs.provider import ScopedDocsProvider
from tests.conftest import git

LIMIT_S = 3.0
"""Far below a kernel's deadline (10 s in the attack run), far above a normal turn."""


def repo_with(tmp_path: Path, *fifos: str) -> Path:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "src" / "app.py").write_text("print('hi')\n")
    (repo / "README.md").write_text("# r\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    (repo / "src" / "new.py").write_text("new\n")
    for rel in fifos:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(repo / rel)
    return repo


def request(repo: Path, touched: tuple[str, ...] = ()) -> ContextRequest:
    return ContextRequest(2000, str(repo), ModelTarget("m"), files_touched=touched)


@pytest.fixture
def timed() -> Iterator[Callable[[Any, ContextRequest], Contribution]]:
    made: list[Any] = []

    def run(provider: Any, req: ContextRequest) -> Contribution:
        made.append(provider)
        started = time.monotonic()
        answer = contribute(provider, req, FallbackCounter())
        assert time.monotonic() - started < LIMIT_S
        return answer

    yield run
    for provider in made:
        provider.close()


def text(contribution: Contribution) -> str:
    return "".join(s.text for s in contribution.sections)


@pytest.mark.parametrize("where", [".gitignore", "src/.gitignore"])
def test_file_tree_answers_with_a_fifo_gitignore(tmp_path: Path, timed: Any, where: str) -> None:
    repo = repo_with(tmp_path, where)
    shown = text(timed(FileTreeProvider(watcher_factory=None), request(repo)))
    assert "app.py" in shown and "new.py" in shown


def test_git_status_answers_with_a_fifo_gitignore(tmp_path: Path, timed: Any) -> None:
    repo = repo_with(tmp_path, "src/.gitignore")
    shown = text(timed(GitStatusProvider(watcher_factory=None), request(repo)))
    assert "On branch" in shown and "named pipe" in shown


def test_git_status_classifies_a_fifo_info_exclude(tmp_path: Path, timed: Any) -> None:
    """git reads info/exclude even without untracked files: the turn is a quick
    ``source_unavailable``, never a wait for the deadline."""
    repo = repo_with(tmp_path)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").unlink(missing_ok=True)
    os.mkfifo(repo / ".git" / "info" / "exclude")
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        timed(GitStatusProvider(watcher_factory=None), request(repo))
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    assert "named pipe" in caught.value.message
    assert time.monotonic() - started < LIMIT_S


def test_scoped_docs_answers_with_a_fifo_gitignore(tmp_path: Path, timed: Any) -> None:
    repo = repo_with(tmp_path, ".gitignore")
    (repo / ".cursor" / "rules").mkdir(parents=True)
    (repo / ".cursor" / "rules" / "py.mdc").write_text("---\nglobs: src/**\n---\nPython rule\n")
    shown = text(timed(ScopedDocsProvider(), request(repo, ("src/app.py",))))
    assert "Python rule" in shown


def test_a_fifo_rule_file_and_nested_doc_are_notes(tmp_path: Path, timed: Any) -> None:
    repo = repo_with(tmp_path, ".cursor/rules/stuck.mdc", "src/AGENTS.md")
    shown = text(timed(ScopedDocsProvider(), request(repo, ("src/app.py",))))
    assert "stuck.mdc" in shown and "not a regular file" in shown


def test_the_walk_outside_git_skips_a_fifo_dot_git_and_gitignore(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "sub").mkdir(parents=True)
    (plain / "a.txt").write_text("a\n")
    (plain / "sub" / "b.txt").write_text("b\n")
    os.mkfifo(plain / "sub" / ".git")
    os.mkfifo(plain / ".gitignore")
    started = time.monotonic()
    assert list_repo_files(plain) == ("a.txt", "sub/b.txt")
    assert time.monotonic() - started < LIMIT_S


def test_a_git_file_whose_commondir_is_a_fifo(tmp_path: Path, timed: Any) -> None:
    main = repo_with(tmp_path)
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    linked = tmp_path / "linked"
    gitdir = main / ".git" / "worktrees" / "linked"
    (gitdir / "commondir").unlink()
    os.mkfifo(gitdir / "commondir")
    for provider in (
        FileTreeProvider(watcher_factory=None),
        GitStatusProvider(watcher_factory=None),
    ):
        try:
            timed(provider, request(linked))
        except Exception as exc:  # a classified error is fine; a hang or a crash is not
            assert getattr(exc, "category", None) is not None, exc


def test_gitexec_stops_git_waiting_on_a_fifo(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, ".gitignore")
    started = time.monotonic()
    with pytest.raises(GitBlocked):
        GitRunner().run(repo, ["ls-files", "--others", "--exclude-standard"])
    assert time.monotonic() - started < 2
