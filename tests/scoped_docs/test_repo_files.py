"""The repository's file list (git's view, or a walk) and the "pattern matches nothing" check."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from providers.core.sources import FileKey
from providers.scoped_docs import repo_files
from providers.scoped_docs.globs import GlobSet
from providers.scoped_docs.repo_files import MAX_REPORTS, PatternCheck, list_repo_files
from providers.scoped_docs.rules import Rule
from tests.conftest import git
from tests.scoped_docs.conftest import write


def committed(root: Path, files: dict[str, str]) -> Path:
    """A repository at ``root`` with ``files`` (what ``.gitignore`` allows) committed."""
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in files.items():
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


def test_walk_without_git_skips_vcs_and_dependency_dirs(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "src/a.py", "a\n")
    write(root, "node_modules/x/index.js", "x\n")
    write(root, "docs/b.md", "b\n")
    assert list_repo_files(root) == ("docs/b.md", "src/a.py")


def test_walk_without_git_applies_ignore_rules(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, ".gitignore", "*.log\nbuild/\n")
    write(root, "src/a.py", "a\n")
    write(root, "src/debug.log", "x\n")
    write(root, "build/out.js", "x\n")
    write(root, "src/__pycache__/a.pyc", "x\n")
    assert list_repo_files(root) == (".gitignore", "src/a.py")


def test_walk_stops_at_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "plain"
    for i in range(10):
        write(root, f"d{i % 3}/f{i}.txt", "x\n")
    monkeypatch.setattr(repo_files, "MAX_WALK_FILES", 4)
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


def glob_rule(path: str, *patterns: str) -> Rule:
    return Rule(path, "cursor", "x\n", FileKey(0, 0, 0, 0), globs=GlobSet(patterns))


def test_only_patterns_matching_nothing_are_reported_once(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    for rel in ("src/auth/login.py", "src/auth.py", "src/authz/x.py", "docs/a.md", "README"):
        write(root, rel, "x\n")
    check = PatternCheck(root)
    rules = [
        glob_rule("a.mdc", "src/auth/**", "*.md", "src/auth.py", "lib/**", "*.rs", "src/authz"),
        glob_rule("b.mdc", "**/*.{py,go}", "docs/", "**/*.go", "README", "!*.rs"),
    ]
    found = check.check(rules)
    assert found == [("a.mdc", "lib/**"), ("a.mdc", "*.rs"), ("b.mdc", "**/*.go")]
    assert check.check(rules) == []  # once per session


def test_touched_paths_count_as_files(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "a.py", "x\n")
    check = PatternCheck(root)
    assert check.check([glob_rule("r.md", "new/**")], seen={"new/file.py"}) == []
    assert check.check([glob_rule("r.md", "new/**")]) == [("r.md", "new/**")]


def test_many_reports_are_counted_not_listed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "plain"
    write(root, "a.py", "x\n")
    rules = [glob_rule(f"r{i:02}.md", f"missing{i}/**") for i in range(MAX_REPORTS + 5)]
    caplog.set_level(logging.WARNING, logger="providers.scoped_docs")
    assert len(PatternCheck(root).check(rules)) == MAX_REPORTS + 5
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == MAX_REPORTS + 1
    assert messages[-1] == "5 more rule patterns match no file in the repository"
