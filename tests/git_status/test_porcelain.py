"""The porcelain v2 parser, on output from the real git for every record type."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.git_status.porcelain import Branch, Entry, EntryKind, PorcelainError, parse
from tests.git_status.repos import commit_file, git, git_bytes, porcelain


def by_path(entries: tuple[Entry, ...]) -> dict[str, Entry]:
    return {entry.path: entry for entry in entries}


def test_headers_of_a_clean_branch(repo: Path) -> None:
    status = parse(porcelain(repo))
    head = git(repo, "rev-parse", "HEAD").strip()
    assert status.branch == Branch(oid=head, head="main")
    assert status.entries == ()
    assert status.stash == 0


def test_ordinary_records_staged_and_unstaged(repo: Path) -> None:
    commit_file(repo, "keep.txt", "k\n")
    commit_file(repo, "gone.txt", "g\n")
    (repo / "README").write_text("changed\n")  # unstaged modify
    (repo / "new.txt").write_text("n\n")
    git(repo, "add", "new.txt")  # staged add
    (repo / "new.txt").write_text("n2\n")  # ... and modified again
    git(repo, "rm", "-q", "gone.txt")  # staged delete
    (repo / "keep.txt").unlink()  # unstaged delete
    entries = by_path(parse(porcelain(repo)).entries)
    assert (entries["README"].index, entries["README"].worktree) == (".", "M")
    assert (entries["new.txt"].index, entries["new.txt"].worktree) == ("A", "M")
    assert (entries["gone.txt"].index, entries["gone.txt"].worktree) == ("D", ".")
    assert (entries["keep.txt"].index, entries["keep.txt"].worktree) == (".", "D")
    assert {e.kind for e in entries.values()} == {EntryKind.ORDINARY}
    assert all(e.submodule == "N..." for e in entries.values())


def test_type_change(repo: Path) -> None:
    commit_file(repo, "link", "target\n")
    (repo / "link").unlink()
    (repo / "link").symlink_to("README")
    entry = by_path(parse(porcelain(repo)).entries)["link"]
    assert entry.worktree == "T"


def test_rename_record_carries_score_and_original_path(repo: Path) -> None:
    commit_file(repo, "old name.txt", "same content\n" * 20)
    git(repo, "mv", "old name.txt", "new name.txt")
    (entry,) = parse(porcelain(repo)).entries
    assert entry.kind is EntryKind.RENAMED
    assert (entry.path, entry.orig_path, entry.score) == ("new name.txt", "old name.txt", 100)
    assert entry.index == "R"


def test_copy_record_when_copies_are_detected(repo: Path) -> None:
    commit_file(repo, "a.txt", "line\n" * 40)
    (repo / "b.txt").write_text("line\n" * 40)
    with (repo / "a.txt").open("a") as handle:
        handle.write("one more\n")  # copies are found from modified sources only
    git(repo, "add", "a.txt", "b.txt")
    out = git_bytes(repo, "-c", "status.renames=copies", "status", "--porcelain=v2", "-z")
    entries = by_path(parse(out).entries)
    copy = entries["b.txt"]
    assert copy.kind is EntryKind.COPIED
    assert copy.orig_path == "a.txt"
    assert copy.index == "C"
    assert copy.score is not None and 0 < copy.score <= 100


def test_untracked_and_ignored(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "debug.log").write_text("x\n")
    (repo / "notes.txt").write_text("x\n")
    entries = by_path(parse(porcelain(repo, "--ignored")).entries)
    assert entries["notes.txt"] == Entry(EntryKind.UNTRACKED, "notes.txt", "?", "?")
    assert entries["debug.log"] == Entry(EntryKind.IGNORED, "debug.log", "!", "!")


def test_untracked_directory_is_one_entry_in_normal_mode(repo: Path) -> None:
    (repo / "build").mkdir()
    (repo / "build" / "a.o").write_text("x")
    (repo / "build" / "b.o").write_text("x")
    normal = parse(porcelain(repo, "--untracked-files=normal")).entries
    every = parse(porcelain(repo, "--untracked-files=all")).entries
    assert [e.path for e in normal] == ["build/"]
    assert sorted(e.path for e in every) == ["build/a.o", "build/b.o"]


def test_unmerged_record_from_a_real_conflict(repo: Path) -> None:
    commit_file(repo, "f.txt", "base\n")
    git(repo, "checkout", "-q", "-b", "other")
    commit_file(repo, "f.txt", "theirs\n")
    git(repo, "checkout", "-q", "main")
    commit_file(repo, "f.txt", "ours\n")
    git(repo, "merge", "-q", "other", check=False)
    (entry,) = parse(porcelain(repo)).entries
    assert entry.kind is EntryKind.UNMERGED
    assert (entry.index, entry.worktree, entry.path) == ("U", "U", "f.txt")


def test_branch_headers_unborn_and_detached(tmp_path: Path, repo: Path) -> None:
    empty = tmp_path / "empty"
    git(tmp_path, "init", "-q", str(empty))
    assert parse(porcelain(empty)).branch == Branch(oid=None, head="main")
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach")
    assert parse(porcelain(repo)).branch == Branch(oid=head, head=None)


def test_upstream_ahead_behind_and_stash(tmp_path: Path, repo: Path) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "fetch", "-q", "origin")
    git(repo, "branch", "-q", "--set-upstream-to=origin/main")
    commit_file(repo, "ahead.txt", "a\n")
    (repo / "README").write_text("stash me\n")
    git(repo, "stash", "-q")
    status = parse(porcelain(repo))
    assert status.branch.upstream == "origin/main"
    assert (status.branch.ahead, status.branch.behind) == (1, 0)
    assert status.stash == 1


def test_awkward_paths_survive(repo: Path) -> None:
    names = ["with space.txt", "ünïcödé.txt", "new\nline.txt", 'quote".txt', "tab\there"]
    for name in names:
        (repo / name).write_text("x\n")
    (repo / "bad-\udcff.txt").write_bytes(b"x")  # the name's bytes are not valid UTF-8
    paths = {e.path for e in parse(porcelain(repo, "--untracked-files=all")).entries}
    assert paths == {*names, "bad-\udcff.txt"}


def test_rename_with_newline_in_both_paths(repo: Path) -> None:
    commit_file(repo, "a\nb.txt", "content\n" * 10)
    git(repo, "mv", "a\nb.txt", "c\nd.txt")
    (entry,) = parse(porcelain(repo)).entries
    assert (entry.orig_path, entry.path) == ("a\nb.txt", "c\nd.txt")


def test_unknown_headers_are_skipped() -> None:
    status = parse(b"# branch.oid abc\0# branch.head main\0# future.thing 1 2\0? x\0")
    assert status.branch == Branch(oid="abc", head="main")
    assert [e.path for e in status.entries] == ["x"]


@pytest.mark.parametrize(
    "garbage",
    [
        b"Z what\0",
        b"1 M N... 100644\0",
        b"2 R. N... 100644 100644 100644 a b R100 new\0",  # no original path field
        b"2 R. N... 100644 100644 100644 a b X100 new\0old\0",
        b"# branch.ab 3 4\0",
        b"# stash many\0",
        b"1 MMM N... 100644 100644 100644 a b path\0",
    ],
)
def test_garbage_raises_porcelain_error(garbage: bytes) -> None:
    with pytest.raises(PorcelainError):
        parse(garbage)
