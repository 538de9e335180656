"""Issue 12: our ignore rules against git itself, file for file, on trees with tricky names.

Generated trees (names with spaces, trailing spaces, tabs, a newline,
brackets, backslashes, glob characters, dots, unicode composed and not, a
byte that is not UTF-8) get ``.gitignore`` files, ``info/exclude`` and a
global excludes file drawn from the case corpus (``data/gitignore_cases.txt``)
with negations mixed in. Then, on the same tree:

* the walk (``providers.repository.walk``, what runs outside a repository)
  lists what ``git ls-files -co --exclude-standard`` lists after ``git init``;
* every file and directory gets git's ``check-ignore --no-index -v`` verdict;
* :class:`PatternSet` prunes what ``git ls-files -o -X <file>`` does.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from providers.repository.excludes import global_excludes
from providers.repository.gitexec import GitRunner
from providers.repository.ignore import IgnoreRules, PatternSet
from providers.repository.layout import git_dir, info_exclude
from providers.repository.walk import walk
from providers.repository.wildmatch import compile_rules, path_bytes
from tests.conftest import isolate_git
from tests.repository.data.make_gitignore_cases import NAMES
from tests.repository.gitignore_oracle import (
    content_lines,
    git_check_ignore,
    read_cases,
    rules_verdict,
)

TREE_NAMES = sorted(
    {*NAMES, "foo", "bar", "baz", "abc", "data", "doc", "frotz", "build", "keep.o", "a.o"}
    | {"x.txt", "hello.c", "ten", "ton", "one", "two", "file1.txt", "[ab]", "a]b", "-b]", "\\"}
)


def narrow(line: str) -> bool:
    """Whether ``line`` hides at most a third of the names: ``*`` would hide a whole tree."""
    rules = compile_rules([line])
    hidden = sum(any(r.include and r.matches_entry(n, False) for r in rules) for n in TREE_NAMES)
    return hidden * 3 <= len(TREE_NAMES)


POOL = sorted(
    {line for case in read_cases() for line in content_lines(case.content) if narrow(line)}
)
"""The corpus's lines (patterns of every kind, comments, blanks) but the broadest."""


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path_factory, monkeypatch)


def git_lines(repo: Path, *args: str) -> set[str]:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    return {os.fsdecode(p) for p in done.stdout.split(b"\0") if p}


def ignore_file(rng: random.Random, count: int) -> str:
    lines = rng.sample(POOL, count)
    lines = ["!" + line if rng.random() < 0.25 else line for line in lines]
    return "\n".join(lines) + "\n"


def generate(root: Path, rng: random.Random) -> None:
    """Directories three deep at most, a ``.gitignore`` in most of them."""

    def fill(directory: bytes, depth: int) -> None:
        os.makedirs(directory, exist_ok=True)
        if rng.random() < 0.7:
            with open(os.path.join(directory, b".gitignore"), "wb") as handle:
                handle.write(path_bytes(ignore_file(rng, rng.randint(4, 14))))
        for name in rng.sample(TREE_NAMES, rng.randint(4, 8)):
            path = os.path.join(directory, path_bytes(name))
            if depth < 3 and rng.random() < 0.45:
                fill(path, depth + 1)
            elif not os.path.lexists(path):
                with open(path, "wb"):
                    pass

    fill(path_bytes(str(root)), 0)


def every_path(root: Path) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel = os.path.relpath(directory, root)
        prefix = "" if rel == "." else rel + "/"
        found += [(prefix + d, True) for d in dirs] + [(prefix + f, False) for f in files]
    return found


@pytest.mark.parametrize("seed", range(8))
def test_walk_and_every_verdict_agree_with_git(tmp_path: Path, git_env: Path, seed: int) -> None:
    rng = random.Random(seed)
    repo = tmp_path / "tree"
    generate(repo, rng)
    global_file = tmp_path / "global-excludes"
    global_file.write_bytes(path_bytes(ignore_file(rng, 8)))
    with git_env.open("a") as handle:
        handle.write(f"[core]\n\texcludesFile = {global_file}\n")

    outside = walk(repo, IgnoreRules(repo, global_excludes=global_file))  # no repository yet
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    listed = git_lines(repo, "ls-files", "-z", "-co", "--exclude-standard")
    assert set(outside.paths) == listed

    exclude = info_exclude(git_dir(repo) or repo / ".git")
    exclude.write_bytes(path_bytes(ignore_file(rng, 8)))
    rules = IgnoreRules(
        repo, info_exclude=exclude, global_excludes=global_excludes(GitRunner(), repo)
    )
    listed = git_lines(repo, "ls-files", "-z", "-co", "--exclude-standard")
    assert set(walk(repo, rules).paths) == listed

    paths = every_path(repo)
    verdicts = git_check_ignore(repo, [path_bytes(rel) for rel, _ in paths])
    ours = [rules_verdict(rules, rel, is_dir) for rel, is_dir in paths]
    wrong = [
        f"{rel!r} ({'dir' if is_dir else 'file'}): ours {mine}, git {theirs}"
        for (rel, is_dir), mine, theirs in zip(paths, ours, verdicts, strict=True)
        if mine != theirs
    ]
    assert not wrong, "\n".join(wrong[:20])
    shown = len(verdicts) - verdicts.count("ignored")
    assert 0 < shown < len(verdicts), "the tree should hide some paths, not all"


@pytest.mark.parametrize("seed", range(4))
def test_pattern_set_prunes_what_git_excludes(tmp_path: Path, seed: int) -> None:
    """Our own patterns (config ``exclude``, ``.contextignore``) against ``ls-files -X``."""
    rng = random.Random(100 + seed)
    repo = tmp_path / "tree"
    generate(repo, rng)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    text = ignore_file(rng, 40)
    patterns = tmp_path / "patterns"
    patterns.write_bytes(path_bytes(text))
    own = PatternSet(text.split("\n"))
    listed = git_lines(repo, "ls-files", "-z", "-o", "-X", str(patterns))
    assert set(walk(repo, None, own=own).paths) == listed


def test_symlinked_info_exclude_and_global_excludes_are_followed(
    tmp_path: Path, git_env: Path
) -> None:
    """t0008: git follows a symlinked ``core.excludesFile`` and ``info/exclude``, and never a
    symlinked ``.gitignore`` in the tree (since 2.32)."""
    repo = tmp_path / "repo"
    for rel in ("a.x", "b.y", "c.z", "d.w", "sub/e.x", "sub/f.z"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (tmp_path / "exclude-target").write_text("*.x\n")
    (tmp_path / "global-target").write_text("*.y\n")
    (repo / "in-tree-target").write_text("*.z\n")
    exclude = info_exclude(git_dir(repo) or repo / ".git")
    exclude.unlink(missing_ok=True)
    exclude.symlink_to(tmp_path / "exclude-target")
    (tmp_path / "global-link").symlink_to(tmp_path / "global-target")
    with git_env.open("a") as handle:
        handle.write(f"[core]\n\texcludesFile = {tmp_path / 'global-link'}\n")
    (repo / ".gitignore").symlink_to("in-tree-target")
    (repo / "sub" / ".gitignore").symlink_to("../in-tree-target")

    found = global_excludes(GitRunner(), repo)
    assert found == tmp_path / "global-link"
    rules = IgnoreRules(repo, info_exclude=exclude, global_excludes=found)
    ours = set(walk(repo, rules).paths)
    assert ours == git_lines(repo, "ls-files", "-z", "-co", "--exclude-standard")
    assert ours == {".gitignore", "c.z", "d.w", "in-tree-target", "sub/.gitignore", "sub/f.z"}
