"""Entries as the model reads them: categories, verbs, directory groups, path display."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.git_status.entries import (
    Category,
    categorise,
    directory_of,
    display_path,
    group_line,
)
from providers.git_status.porcelain import Entry, EntryKind, Status, parse
from tests.git_status.repos import commit_file, git, porcelain


def lines(repo: Path) -> dict[Category, list[str]]:
    found = categorise(parse(porcelain(repo)))
    return {category: [c.line() for c in changes] for category, changes in found.items()}


def test_one_entry_can_be_staged_and_unstaged(repo: Path) -> None:
    (repo / "README").write_text("staged\n")
    git(repo, "add", "README")
    (repo / "README").write_text("and again\n")
    found = lines(repo)
    assert found[Category.STAGED] == ["modified: README"]
    assert found[Category.UNSTAGED] == ["modified: README"]


def test_rename_is_old_arrow_new(repo: Path) -> None:
    commit_file(repo, "src/old.py", "x = 1\n" * 30)
    git(repo, "mv", "src/old.py", "src/new.py")
    assert lines(repo)[Category.STAGED] == ["renamed: src/old.py -> src/new.py"]


def test_conflicts_name_both_sides(repo: Path) -> None:
    commit_file(repo, "f.txt", "base\n")
    git(repo, "checkout", "-q", "-b", "other")
    git(repo, "rm", "-q", "f.txt")
    git(repo, "commit", "-qm", "delete")
    git(repo, "checkout", "-q", "main")
    commit_file(repo, "f.txt", "ours\n")
    git(repo, "merge", "-q", "other", check=False)
    assert lines(repo)[Category.CONFLICTED] == ["deleted by them: f.txt"]


def test_ignored_entries_are_not_listed() -> None:
    status = Status(parse(b"").branch, 0, (Entry(EntryKind.IGNORED, "x.log", "!", "!"),))
    assert all(not changes for changes in categorise(status).values())


def test_submodule_detail() -> None:
    entry = Entry(EntryKind.ORDINARY, "lib", ".", "M", "SCMU")
    (change,) = categorise(Status(parse(b"").branch, 0, (entry,)))[Category.UNSTAGED]
    assert change.line() == (
        "modified (submodule: new commits, modified content, untracked content): lib"
    )


def test_sorted_by_path_whatever_the_input_order() -> None:
    entries = tuple(Entry(EntryKind.UNTRACKED, p, "?", "?") for p in ("b", "a/z", "a/b"))
    found = categorise(Status(parse(b"").branch, 0, entries))[Category.UNTRACKED]
    assert [c.path for c in found] == ["a/b", "a/z", "b"]


@pytest.mark.parametrize(
    ("path", "directory"),
    [
        ("a.txt", ""),
        ("src/auth/x.py", "src/auth/"),
        ("build/", ""),
        ("src/build/", "src/"),
    ],
)
def test_directory_of(path: str, directory: str) -> None:
    """An untracked directory (``build/``) sits in its parent, like a file."""
    assert directory_of(path) == directory


def test_group_line_counts_by_verb_in_fixed_order() -> None:
    """A directory's line names its counts in one order, whatever order they were met in."""
    verbs = {"deleted": 1, "modified": 2, "added": 0}
    assert group_line("src/auth/", verbs) == "src/auth/: 2 modified, 1 deleted"
    assert group_line("", {"untracked": 3}) == "./: 3 untracked"


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("plain/path.txt", "plain/path.txt"),
        ("with space.txt", "with space.txt"),
        ("ünïcödé.txt", "ünïcödé.txt"),
        ("new\nline", '"new\\nline"'),
        ('quo"te', '"quo\\"te"'),
        ("back\\slash", '"back\\\\slash"'),
        ("bell\x07", '"bell\\a"'),
        ("esc\x1b", '"esc\\033"'),
        ("bad-\udcff", '"bad-\\377"'),
        (" leading", '" leading"'),
        ("a -> b", '"a -> b"'),
    ],
)
def test_display_path_is_one_valid_line(path: str, shown: str) -> None:
    assert display_path(path) == shown
    assert "\n" not in display_path(path)
    display_path(path).encode("utf-8")  # no lone surrogates left
