"""The git runner: discovery, failure classification, timeouts, and never writing."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from providers.core.errors import ErrorCategory, ProviderError
from providers.git_status.git import (
    Git,
    NotARepository,
    RepoLayout,
    RepositoryRefused,
    find_executable,
    plain_layout,
)
from tests.git_status.repos import commit_file, counting_git, git, runs, write_script


def test_discover_from_a_subdirectory(repo: Path) -> None:
    (repo / "sub" / "deeper").mkdir(parents=True)
    layout = Git("git").discover(repo / "sub" / "deeper")
    assert layout == RepoLayout(repo / ".git", repo / ".git", repo, bare=False)


def test_discover_linked_worktree(tmp_path: Path, repo: Path) -> None:
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    assert (worktree / ".git").is_file()
    layout = Git("git").discover(worktree)
    assert layout is not None
    assert layout.toplevel == worktree
    assert layout.common_dir == repo / ".git"
    assert layout.git_dir.parent == repo / ".git" / "worktrees"


def test_discover_bare_and_inside_git_dir(tmp_path: Path, repo: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert Git("git").discover(bare) == RepoLayout(bare, bare, None, bare=True)
    inside = Git("git").discover(repo / ".git")
    assert inside is not None and inside.toplevel is None and not inside.bare


def test_plain_layout_agrees_with_rev_parse_or_defers_to_it(tmp_path: Path, repo: Path) -> None:
    """The cold turn's shortcut: a plain repository needs no ``rev-parse``; anything
    unusual (linked worktree, bare, inside ``.git``, config moving the work tree) asks git,
    and a work tree moved elsewhere is refused (issue 20 item 2: never another directory's
    files as this one's)."""
    (repo / "sub").mkdir()
    for where in (repo, repo / "sub"):
        plain = plain_layout(where)
        assert plain is not None
        git(repo, "config", "core.fsmonitor", "false")  # any config change: still plain
        assert plain == Git("git").discover(where)
    wrapper, log = counting_git(tmp_path)
    assert Git(str(wrapper)).discover(repo / "sub") is not None
    assert runs(log) == []
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert plain_layout(worktree) is None
    assert plain_layout(bare) is None
    assert plain_layout(repo / ".git" / "refs") is None
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    moved = tmp_path / "moved-tree"
    moved.mkdir()
    git(other, "config", "core.worktree", str(moved))
    assert plain_layout(other) is None
    with pytest.raises(RepositoryRefused, match=r"core\.worktree"):  # issue 20 item 2
        Git("git").discover(other)
    git(other, "config", "--unset", "core.worktree")
    git(other, "config", "core.bare", "true")
    assert plain_layout(other) is None


def test_not_a_repository_costs_no_process(tmp_path: Path) -> None:
    wrapper, log = counting_git(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert Git(str(wrapper)).discover(plain) is None
    assert runs(log) == []


def test_not_a_repository_by_git_itself(tmp_path: Path) -> None:
    """A ``.git`` that git rejects (here: an empty file) is 'no repository', not a failure."""
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / ".git").write_text("")
    with pytest.raises(ProviderError):  # git calls an empty .git file invalid
        Git("git").discover(odd)
    (odd / ".git").unlink()
    (odd / ".git").mkdir()  # an empty directory: git walks past it, finds nothing
    assert Git("git").discover(odd) is None


def test_missing_executable_is_invalid_request(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-git"
    with pytest.raises(ProviderError) as caught:
        find_executable(str(missing))
    assert caught.value.category is ErrorCategory.INVALID_REQUEST
    assert str(missing) in caught.value.message
    not_executable = tmp_path / "plain-file"
    not_executable.write_text("#!/bin/sh\n")
    with pytest.raises(ProviderError):
        find_executable(str(not_executable))
    assert os.path.isabs(find_executable("git"))


def test_executable_gone_at_run_time_is_source_unavailable(tmp_path: Path, repo: Path) -> None:
    """'source_unavailable: Declared file/glob/source unreadable at call time'."""
    with pytest.raises(ProviderError) as caught:
        Git(str(tmp_path / "vanished-git")).run(repo, "status")
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    assert caught.value.retryable


def test_timeout_kills_git_and_is_retryable(tmp_path: Path, repo: Path) -> None:
    sleepy = write_script(tmp_path / "sleepy-git", "sleep 30\n")
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        Git(str(sleepy), timeout_ms=200).run(repo, "status")
    assert time.monotonic() - started < 5
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    assert "timed out after 200 ms" in caught.value.message
    assert caught.value.retryable


def test_safe_directory_refusal_is_source_unavailable(repo: Path) -> None:
    """A plain ``.git`` we own is found without git; git's refusal shows at its first run."""
    environ = {**os.environ, "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}
    refusing = Git("git", environ=environ)
    assert refusing.discover(repo) == RepoLayout(repo / ".git", repo / ".git", repo, bare=False)
    with pytest.raises(ProviderError) as caught:
        refusing.status(repo, untracked="normal")
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    assert "safe.directory" in caught.value.message
    assert str(repo) in caught.value.message


def test_corrupt_repository_is_source_unavailable(repo: Path) -> None:
    layout = Git("git").discover(repo)
    assert layout is not None
    (repo / ".git" / "index").write_bytes(b"DIRC garbage")
    with pytest.raises(ProviderError) as caught:
        Git("git").status(repo, untracked="normal")
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    assert "git status" in caught.value.message


def test_status_never_writes_the_index(repo: Path) -> None:
    """A racily-clean index would be refreshed and rewritten by a plain `git status`."""
    commit_file(repo, "a.txt", "a\n")
    index = repo / ".git" / "index"
    (repo / "a.txt").write_text("b\n")
    os.utime(repo / "a.txt", ns=(index.stat().st_mtime_ns,) * 2)  # racy: same mtime as index
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    Git("git").status(repo, untracked="all")
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert not (repo / ".git" / "index.lock").exists()


def test_log_and_head_oid(repo: Path, tmp_path: Path) -> None:
    commit_file(repo, "b.txt", "b\n", "second commit")
    out = Git("git").log(repo, 5)
    assert out.count(b"\0") == 6
    assert Git("git").head_oid(repo) == git(repo, "rev-parse", "HEAD").strip()
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert Git("git").head_oid(bare) is None


def test_not_a_repository_raised_by_run(tmp_path: Path) -> None:
    with pytest.raises(NotARepository):
        Git("git").run(tmp_path, "status")
