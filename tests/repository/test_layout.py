"""Where a repository is: its root, git directory, common directory, nested repositories."""

from __future__ import annotations

import os
from pathlib import Path

from providers.repository.layout import (
    RepoRoots,
    common_dir,
    find_root,
    git_dir,
    info_exclude,
    is_nested_repository,
)
from tests.conftest import git


def test_repo_root_is_nearest_git_upwards_else_the_directory(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "pkg").mkdir(parents=True)
    assert find_root(tmp_path / "repo" / "src" / "pkg") == (tmp_path / "repo").resolve()
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text("gitdir: /elsewhere\n")  # a worktree's .git file
    assert find_root(tmp_path / "wt") == (tmp_path / "wt").resolve()
    (tmp_path / "plain").mkdir()
    assert find_root(tmp_path / "plain") in {
        (tmp_path / "plain").resolve(),
        *(p for p in (tmp_path / "plain").resolve().parents if (p / ".git").exists()),
    }


def test_repo_roots_memo_notices_a_new_or_removed_git_dir(tmp_path: Path) -> None:
    roots = RepoRoots()
    work = tmp_path / "work"
    work.mkdir()
    first = roots.root(work)
    assert roots.root(work) == first
    (work / ".git").mkdir()
    assert roots.root(work) == work.resolve()
    (work / ".git").rmdir()
    assert roots.root(work) == find_root(work)


def test_git_dir_follows_a_worktree_file_and_common_dir_its_pointer(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "one")
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    linked = tmp_path / "linked"
    gitdir = git_dir(linked)
    assert gitdir is not None and gitdir.resolve() == (main / ".git" / "worktrees" / "linked")
    assert common_dir(gitdir).resolve() == (main / ".git").resolve()
    assert info_exclude(gitdir).resolve() == (main / ".git" / "info" / "exclude").resolve()
    assert git_dir(main) == main / ".git"
    assert git_dir(tmp_path) is None


def test_nested_repository_is_what_git_would_not_descend_into(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    git(inner, "init", "-q")
    assert is_nested_repository(str(inner))
    (tmp_path / "fake" / ".git").mkdir(parents=True)  # no HEAD, objects, refs: git descends
    assert not is_nested_repository(str(tmp_path / "fake"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: ../inner/.git\n")
    assert is_nested_repository(str(tmp_path / "sub"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / ".git").write_text("gitdir:no-space\n")  # git wants "gitdir: "
    assert not is_nested_repository(str(tmp_path / "bad"))


def test_a_fifo_where_a_git_file_is_expected_never_blocks(tmp_path: Path) -> None:
    """Issue 15 item 1: only regular files are read; a FIFO is no repository."""
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / ".git")
    assert not is_nested_repository(str(tmp_path / "sub"))
    assert git_dir(tmp_path / "sub") is None
    (tmp_path / "gd").mkdir()
    os.mkfifo(tmp_path / "gd" / "commondir")
    assert common_dir(tmp_path / "gd") == tmp_path / "gd"
