"""Every file of a repository as one list: git's view, or a walk with git's ignore rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.repository import files
from providers.repository.files import list_repo_files
from tests.conftest import git
from tests.support.files import write


def committed(root: Path, contents: dict[str, str]) -> Path:
    """A repository at ``root`` with ``contents`` (what ``.gitignore`` allows) committed."""
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in contents.items():
        write(root, rel, text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    return root


def test_git_listing_is_tracked_plus_untracked_minus_ignored(tmp_path: Path) -> None:
    root = committed(
        tmp_path / "r",
        {".gitignore": "build/\n", "src/a.py": "a\n", "build/out.js": "ignored\n"},
    )
    write(root, "src/new file.py", "untracked\n")
    assert list_repo_files(root) == (".gitignore", "src/a.py", "src/new file.py")
    listed = git(root, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    assert sorted(p for p in listed if p) == list(list_repo_files(root))


def test_walk_without_git_has_no_skip_list_of_its_own(tmp_path: Path) -> None:
    """Ignore rules live in one place (issue 10): what no ignore file names is listed."""
    root = tmp_path / "plain"
    write(root, "src/a.py", "a\n")
    write(root, "node_modules/x/index.js", "x\n")
    write(root, "docs/b.md", "b\n")
    assert list_repo_files(root) == ("docs/b.md", "node_modules/x/index.js", "src/a.py")
    write(root, ".gitignore", "node_modules/\n")
    assert list_repo_files(root) == (".gitignore", "docs/b.md", "src/a.py")


def test_walk_without_git_applies_ignore_rules(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, ".gitignore", "*.log\nbuild/\n")
    write(root, "src/a.py", "a\n")
    write(root, "src/debug.log", "x\n")
    write(root, "build/out.js", "x\n")
    assert list_repo_files(root) == (".gitignore", "src/a.py")


def test_walk_stops_at_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "plain"
    for i in range(10):
        write(root, f"d{i % 3}/f{i}.txt", "x\n")
    monkeypatch.setattr(files, "MAX_WALK_FILES", 4)
    listed = list_repo_files(root)
    assert len(listed) == 4
    assert all((root / rel).is_file() for rel in listed)


def test_git_listing_leaves_out_deleted_files_and_falls_back_to_the_walk(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {".gitignore": "*.log\n", "a.py": "a\n", "gone.py": "g\n"})
    (root / "gone.py").unlink()
    write(root, "x.log", "ignored\n")
    assert list_repo_files(root) == (".gitignore", "a.py")
    (root / ".git" / "index").write_bytes(b"DIRC garbage")  # git fails: walk, same rules
    assert list_repo_files(root) == (".gitignore", "a.py")
