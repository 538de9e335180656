"""Operations in progress, each produced by the real git and read from the git dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.git_status.operation import Operation, OperationKind, read_operations
from tests.git_status.repos import commit_file, git


def diverge(repo: Path, commits: int = 1) -> None:
    """``main`` and ``topic`` both change ``f.txt``: any replay of topic conflicts."""
    commit_file(repo, "f.txt", "base\n")
    git(repo, "checkout", "-q", "-b", "topic")
    for i in range(commits):
        commit_file(repo, "f.txt", f"topic {i}\n", f"topic {i}")
    git(repo, "checkout", "-q", "main")
    commit_file(repo, "f.txt", "main\n", "main change")


def test_nothing_in_progress(repo: Path) -> None:
    assert read_operations(repo / ".git") == ()


def test_merge_conflict(repo: Path) -> None:
    diverge(repo)
    git(repo, "merge", "-q", "topic", check=False)
    assert read_operations(repo / ".git") == (Operation(OperationKind.MERGE),)


@pytest.mark.parametrize("backend", ["--merge", "--apply"])
def test_rebase_stopped_on_a_conflict_has_step_n_of_m(repo: Path, backend: str) -> None:
    diverge(repo, commits=3)
    onto = git(repo, "rev-parse", "main").strip()
    git(repo, "checkout", "-q", "topic")
    git(repo, "rebase", backend, "main", check=False)
    (op,) = read_operations(repo / ".git")
    assert op.kind is OperationKind.REBASE
    assert (op.step, op.total) == (1, 3)
    assert op.branch == "topic"
    assert op.onto == onto


def test_cherry_pick_conflict(repo: Path) -> None:
    diverge(repo)
    git(repo, "cherry-pick", "topic", check=False)
    assert read_operations(repo / ".git") == (Operation(OperationKind.CHERRY_PICK),)


def test_revert_conflict(repo: Path) -> None:
    commit_file(repo, "f.txt", "one\n")
    commit_file(repo, "f.txt", "two\n")
    commit_file(repo, "f.txt", "three\n")
    git(repo, "revert", "--no-edit", "HEAD~1", check=False)
    assert read_operations(repo / ".git") == (Operation(OperationKind.REVERT),)


def test_bisect(repo: Path) -> None:
    commit_file(repo, "f.txt", "one\n")
    commit_file(repo, "f.txt", "two\n")
    git(repo, "bisect", "start", "HEAD", "HEAD~2")
    assert read_operations(repo / ".git") == (Operation(OperationKind.BISECT),)


def test_am_conflict(tmp_path: Path, repo: Path) -> None:
    diverge(repo)
    patch = tmp_path / "topic.patch"
    patch.write_text(git(repo, "format-patch", "--stdout", "main..topic"))
    git(repo, "am", str(patch), check=False)
    (op,) = read_operations(repo / ".git")
    assert (op.kind, op.step, op.total) == (OperationKind.AM, 1, 1)


def test_linked_worktree_has_its_own_state(tmp_path: Path, repo: Path) -> None:
    diverge(repo)
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "topic")
    git(worktree, "merge", "-q", "main", check=False)
    gitdir = Path(git(worktree, "rev-parse", "--absolute-git-dir").strip())
    assert read_operations(gitdir) == (Operation(OperationKind.MERGE),)
    assert read_operations(repo / ".git") == ()
