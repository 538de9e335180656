"""Default branch from the ref files, cross-checked with the real git's own answer."""

from __future__ import annotations

from pathlib import Path

from providers.git_status.git import Git
from providers.git_status.refs import (
    REF_PATTERNS,
    default_branch_from_files,
    default_branch_from_listing,
    refs_key,
)
from tests.git_status.repos import git


def clone_with_origin_head(tmp_path: Path, repo: Path, branch: str) -> Path:
    git(repo, "branch", "-q", branch)
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(origin, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return clone


def listing(repo: Path) -> str | None:
    return default_branch_from_listing(Git("git").for_each_ref(repo, *REF_PATTERNS))


def test_origin_head_wins(tmp_path: Path, repo: Path) -> None:
    clone = clone_with_origin_head(tmp_path, repo, "trunk")
    assert git(clone, "symbolic-ref", "refs/remotes/origin/HEAD").strip().endswith("/trunk")
    assert default_branch_from_files(clone / ".git") == "trunk"
    assert listing(clone) == "trunk"


def test_main_then_master_when_no_origin_head(repo: Path) -> None:
    assert default_branch_from_files(repo / ".git") == "main"
    git(repo, "branch", "-q", "-m", "main", "master")
    assert default_branch_from_files(repo / ".git") == "master"
    assert listing(repo) == "master"
    git(repo, "branch", "-q", "-m", "master", "feature")
    assert default_branch_from_files(repo / ".git") is None
    assert listing(repo) is None


def test_packed_refs(repo: Path) -> None:
    git(repo, "branch", "-q", "-m", "main", "master")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "master").exists()
    assert default_branch_from_files(repo / ".git") == "master"


def test_refs_key_changes_with_the_refs(repo: Path) -> None:
    before = refs_key(repo / ".git")
    assert refs_key(repo / ".git") == before
    git(repo, "branch", "-q", "master")
    assert refs_key(repo / ".git") != before
