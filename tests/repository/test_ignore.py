"""repository.ignore: git's ignore rules outside git, checked against ``git check-ignore``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from providers.repository.ignore import (
    IgnoreRules,
    PatternSet,
    compile_patterns,
    default_global_excludes,
    parse_patterns,
    read_patterns,
)
from tests.conftest import isolate_git
from tests.support.files import write
from tests.support.trees import generate_tree, random_patterns


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No user or system git config leaks in."""
    return isolate_git(tmp_path_factory, monkeypatch)


def git_ignored(repo: Path, paths: list[str]) -> set[str]:
    """What the real ``git check-ignore`` says about ``paths`` (index not consulted)."""
    done = subprocess.run(
        ["git", "-C", str(repo), "check-ignore", "--no-index", "--stdin", "-z"],
        input=b"".join(os.fsencode(p) + b"\0" for p in paths),
        capture_output=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return {p for p in os.fsdecode(done.stdout).split("\0") if p}


def every_path(root: Path) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel_dir = os.path.relpath(directory, root)
        prefix = "" if rel_dir == "." else rel_dir + "/"
        found.extend((prefix + d, True) for d in dirs)
        found.extend((prefix + f, False) for f in files)
    return found


@pytest.mark.parametrize("seed", range(8))
def test_rules_agree_with_git_check_ignore(tmp_path: Path, git_env: Path, seed: int) -> None:
    """Differential, every file and directory: nested files, info/exclude, global excludes."""
    repo = tmp_path / "repo"
    generate_tree(repo, seed)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    info = repo / ".git" / "info" / "exclude"
    info.write_text(random_patterns(seed, 3))
    excludes = tmp_path / "global"
    excludes.write_text(random_patterns(seed + 50, 3))
    with git_env.open("a") as handle:
        handle.write(f"[core]\n\texcludesFile = {excludes}\n")
    rules = IgnoreRules(repo, info_exclude=info, global_excludes=excludes)
    paths = every_path(repo)
    ours = {rel for rel, is_dir in paths if rules.excluded_path(rel, is_dir)}
    assert ours == git_ignored(repo, [rel for rel, _ in paths])
    assert ours  # the generated rules do ignore something


def test_a_deeper_directory_negation_does_not_reach_files_inside(tmp_path: Path) -> None:
    """``!sub/`` re-includes the directory, not ``sub/a.txt`` that ``*.txt`` ignores."""
    write(tmp_path, ".gitignore", "*.txt\nsub/\n")
    write(tmp_path, "d/.gitignore", "!sub/\n")
    write(tmp_path, "d/sub/a.txt")
    rules = IgnoreRules(tmp_path)
    assert rules.excluded("sub", True)
    assert not rules.excluded("d/sub", True)
    assert rules.excluded_path("d/sub/a.txt", False)


def test_precedence_gitignore_over_info_exclude_over_global(tmp_path: Path) -> None:
    info = tmp_path / "info-exclude"
    info.write_text("!*.keep\n*.info\n")
    global_file = tmp_path / "global"
    global_file.write_text("*.keep\n*.info\n!*.info\n*.glob\n")
    root = tmp_path / "root"
    write(root, ".gitignore", "!*.glob\n")
    rules = IgnoreRules(root, info_exclude=info, global_excludes=global_file)
    assert not rules.excluded("a.keep", False)  # info/exclude's negation beats global
    assert rules.excluded("a.info", False)  # info/exclude beats global's negation
    assert not rules.excluded("a.glob", False)  # .gitignore beats global


def test_nested_file_is_rooted_at_its_directory(tmp_path: Path) -> None:
    write(tmp_path, "a/.gitignore", "/only-here\nb/c\n")
    rules = IgnoreRules(tmp_path)
    assert rules.excluded("a/only-here", False)
    assert not rules.excluded("only-here", False)
    assert not rules.excluded("a/x/only-here", False)
    assert rules.excluded("a/b/c", False)
    assert not rules.excluded("b/c", False)


def test_nothing_inside_an_excluded_directory_comes_back(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "build/\n!build/keep.txt\n")
    rules = IgnoreRules(tmp_path)
    assert rules.excluded_path("build/keep.txt", False)
    assert rules.excluded_path("build/deep/x", False)
    assert not rules.excluded_path("src/build", False)  # a file named build is not a directory


def test_git_directory_is_always_excluded(tmp_path: Path) -> None:
    rules = IgnoreRules(tmp_path)
    assert rules.excluded(".git", True)
    assert rules.excluded("sub/.git", False)  # a worktree or submodule pointer file
    assert not rules.excluded(".github", True)


def test_parse_patterns_splits_like_git() -> None:
    """Only ``\\n`` separates lines; one ``\\r`` before it goes; a BOM is skipped."""
    data = b"\xef\xbb\xbf*.log\r\nname\x0bwith-vt\nbad-\xff\n"
    assert parse_patterns(data) == ["*.log", "name\x0bwith-vt", os.fsdecode(b"bad-\xff"), ""]


def test_crlf_file_matches(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_bytes(b"*.log\r\n")
    assert IgnoreRules(tmp_path).excluded("x.log", False)


def test_read_patterns_follows_symlinks_only_when_told(tmp_path: Path) -> None:
    """git never follows a symlinked in-tree ``.gitignore`` (2.32), but does follow
    ``info/exclude`` and ``core.excludesFile`` (t0008)."""
    (tmp_path / "real").write_text("*\n")
    (tmp_path / ".gitignore").symlink_to(tmp_path / "real")
    assert read_patterns(tmp_path / ".gitignore") == []
    assert read_patterns(tmp_path / ".gitignore", follow=True) == ["*", ""]
    assert read_patterns(tmp_path / "missing") == []
    assert read_patterns(tmp_path) == []  # a directory
    assert read_patterns(tmp_path, follow=True) == []
    assert not IgnoreRules(tmp_path).excluded("anything", False)
    rules = IgnoreRules(tmp_path / "elsewhere", info_exclude=tmp_path / ".gitignore")
    assert rules.excluded("anything", False)


def test_comment_only_files_compile_to_nothing() -> None:
    assert compile_patterns(["# just a comment", "", "   "]) is None
    assert compile_patterns(["*.o"]) is not None


def test_lines_git_never_matches_match_nothing_and_cost_nothing_else() -> None:
    """Issue 12: ``foo\\``, ``x\\ `` with spaces after it, a lone ``!``, ``[z-a]``, an
    unclosed ``[``: git accepts them all; each means what it means to git."""
    own = PatternSet(["foo\\", "x\\   ", "!", "[z-a]", "[abc", "*.o"])
    assert not own.excluded("foo", False)
    assert own.excluded("x ", False)
    assert own.excluded("z", False)  # a range's first character is a member
    assert not own.excluded("a", False)
    assert not own.excluded("[abc", False)
    assert own.excluded("a.o", False)


def test_pattern_set_checks_ancestors() -> None:
    own = PatternSet(["vendor/", "*.gen.py", "!keep.gen.py"])
    assert own
    assert own.excluded_path("vendor/a/b.js", False)
    assert own.excluded_path("src/x.gen.py", False)
    assert not own.excluded_path("src/keep.gen.py", False)
    assert not own.excluded_path("src/vendor", False)
    assert not PatternSet([])
    assert not PatternSet([]).excluded_path("x", False)


def test_default_global_excludes() -> None:
    assert default_global_excludes({"XDG_CONFIG_HOME": "/x", "HOME": "/h"}) == Path("/x/git/ignore")
    assert default_global_excludes({"XDG_CONFIG_HOME": "", "HOME": "/h"}) == Path(
        "/h/.config/git/ignore"
    )
    assert default_global_excludes({}) is None
