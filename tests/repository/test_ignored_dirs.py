"""Issue 27 item 5: the directories a watch leaves out are exactly those git ignores, on
random trees with ``.gitignore`` files, checked against git itself; never a folder that
holds a file git shows (tracked ones added with ``git add -f`` included), never ``.git``,
never a folder a provider keeps."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from providers.repository.gitexec import GitRunner
from providers.repository.ignored_dirs import IgnoredDirs
from tests.conftest import isolate_git
from tests.support.trees import generate_tree


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path_factory, monkeypatch)


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", "-C", str(root), *args], input=stdin, capture_output=True, check=False
    ).stdout


def directories(root: Path) -> list[str]:
    """Every directory below ``root`` outside ``.git``, repo-relative."""
    found = []
    for directory, subdirs, _ in os.walk(root):
        subdirs[:] = [d for d in subdirs if d != ".git"]
        rel = os.path.relpath(directory, root)
        if rel != ".":
            found.append(rel)
    return found


def git_ignored(root: Path, rels: list[str]) -> set[str]:
    """The paths git's rules ignore, themselves or through a directory above them."""
    out = git(root, "check-ignore", "--no-index", "--stdin", "-z", stdin="\0".join(rels).encode())
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


@pytest.mark.parametrize("seed", range(30))
def test_skipped_directories_are_what_git_ignores(tmp_path: Path, seed: int) -> None:
    root = tmp_path / "repo"
    generate_tree(root, seed)
    git(root, "init", "-q")
    rels = directories(root)
    ignored = git_ignored(root, rels)
    rules = IgnoredDirs(root, GitRunner())
    skipped = {rel for rel in rels if rules.skip(os.path.join(root, rel))}
    assert skipped == ignored
    shown = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for path in (os.fsdecode(p) for p in shown.split(b"\0") if p):
        parent = os.path.dirname(path)
        assert not rules.skip(os.path.join(root, parent)) if parent else True, path


def test_tracked_files_git_ignores_keep_their_folders(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for rel in ("node_modules/a/b/vendored.js", "node_modules/a/c/x.js", "src/m.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    (root / ".gitignore").write_text("node_modules/\n")
    git(root, "init", "-q")
    git(root, "add", "-f", "node_modules/a/b/vendored.js")
    rules = IgnoredDirs(root, GitRunner())
    assert [d for d in sorted(directories(root)) if rules.skip(str(root / d))] == [
        "node_modules/a/c"
    ]


def test_git_state_outside_paths_and_kept_folders_are_never_skipped(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".claude" / "rules" / "deep").mkdir(parents=True)
    (root / ".claude" / "cache").mkdir()
    (root / ".gitignore").write_text(".claude/\n*\n!.gitignore\n")
    git(root, "init", "-q")
    rules = IgnoredDirs(root, GitRunner(), keep=(".claude/rules",))
    assert not rules.skip(str(root / ".git"))
    assert not rules.skip(str(root / ".git" / "refs" / "heads"))
    assert not rules.skip(str(tmp_path / "elsewhere"))
    assert not rules.skip(str(root / ".claude"))
    assert not rules.skip(str(root / ".claude" / "rules" / "deep"))
    assert rules.skip(str(root / ".claude" / "cache"))
    assert rules.rule_file(str(root / "src" / ".gitignore"))
    assert rules.rule_file(str(root / ".git" / "info" / "exclude"))
    assert not rules.rule_file(str(root / "src" / "a.py"))
    assert not rules.stale()
    (root / ".git" / "info" / "exclude").write_text("more\n")
    assert rules.stale()
