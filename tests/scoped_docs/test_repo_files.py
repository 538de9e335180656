"""The repository's file list (git's view, or a walk) and the "pattern matches nothing" check."""

from __future__ import annotations

from pathlib import Path

from providers.scoped_docs.repo_files import list_repo_files, unmatched
from tests.conftest import git
from tests.scoped_docs.conftest import write


def test_git_listing_is_tracked_plus_untracked_minus_ignored(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitignore", "build/\n")
    write(root, "src/a.py", "a\n")
    write(root, "build/out.js", "ignored\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    write(root, "src/new file.py", "untracked\n")
    assert list_repo_files(root) == (".gitignore", "src/a.py", "src/new file.py")
    listed = git(root, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    assert sorted(p for p in listed if p) == list(list_repo_files(root))


def test_walk_without_git_skips_vcs_and_dependency_dirs(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "src/a.py", "a\n")
    write(root, "node_modules/x/index.js", "x\n")
    write(root, "docs/b.md", "b\n")
    assert list_repo_files(root) == ("docs/b.md", "src/a.py")


def test_unmatched_reports_only_patterns_matching_nothing() -> None:
    files = sorted(["src/auth/login.py", "src/auth.py", "src/authz/x.py", "docs/a.md", "README"])
    missing, cut = unmatched(
        ["src/auth/**", "*.md", "src/auth.py", "lib/**", "*.rs", "src/authz"], files
    )
    assert (missing, cut) == (["lib/**", "*.rs"], False)


def test_unmatched_counts_touched_paths_too() -> None:
    missing, _ = unmatched(["new/**"], ["a.py"], extra=["new/file.py"])
    assert missing == []
