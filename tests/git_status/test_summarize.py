"""Rendering within the budget: header lines, collapse order, notes, determinism.

"Self-truncation/summarization to fit `token_budget`: MUST ... kernel does not
do this on the plugin's behalf" (context-conformance.md).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from providers.core.budget import FallbackCounter
from providers.git_status.git import Git
from providers.git_status.history import Commit
from providers.git_status.operation import Operation, OperationKind
from providers.git_status.porcelain import Branch, Entry, EntryKind, Status
from providers.git_status.snapshot import Snapshot, Snapshotter
from providers.git_status.summarize import Options, summarize
from tests.git_status.repos import commit_file, git

OID = "0123456789abcdef0123456789abcdef01234567"


class DenseCounter:
    """A tokenizer denser than the fallback estimate: 1 token per 2 bytes."""

    epoch = 0

    def count(self, text: str) -> int:
        return math.ceil(len(text.encode()) / 2)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]


def snap(entries: Sequence[Entry] = (), *, branch: Branch | None = None, **kw: object) -> Snapshot:
    status = Status(branch or Branch(oid=OID, head="main"), 0, tuple(entries))
    return Snapshot(status, **kw)  # type: ignore[arg-type]


def text(snapshot: Snapshot, budget: int = 10_000, **options: object) -> str:
    summary = summarize(snapshot, budget, FallbackCounter(), Options(**options))  # type: ignore[arg-type]
    assert summary is not None
    return summary.text


def first_line(snapshot: Snapshot) -> str:
    return text(snapshot).split("\n", 1)[0]


def test_branch_lines() -> None:
    assert first_line(snap()) == "On branch main"
    assert first_line(snap(branch=Branch(oid=None, head="main"))) == (
        "On branch main (no commits yet)"
    )
    detached = Branch(oid=OID, head=None)
    assert first_line(snap(branch=detached)) == "HEAD detached at 0123456"
    commits = (Commit(OID, "012345678", "subject"),)
    assert first_line(snap(branch=detached, commits=commits)) == "HEAD detached at 012345678"


def test_upstream_lines() -> None:
    def upstream(ahead: int | None, behind: int | None) -> str:
        branch = Branch(OID, "main", "origin/main", ahead, behind)
        return first_line(snap(branch=branch))

    assert upstream(0, 0) == "On branch main, up to date with origin/main"
    assert upstream(2, 1) == "On branch main, 2 commits ahead of origin/main, 1 behind"
    assert upstream(0, 3) == "On branch main, 3 commits behind origin/main"  # no "0 ahead"
    assert upstream(1, 0) == "On branch main, 1 commit ahead of origin/main"
    assert upstream(None, None) == "On branch main, upstream origin/main (gone)"


def test_default_branch_operations_and_stash() -> None:
    ops = (
        Operation(OperationKind.REBASE, 2, 5, "topic", OID),
        Operation(OperationKind.BISECT),
    )
    status = Status(Branch(OID, None), 3, ())
    lines = text(Snapshot(status, operations=ops, default_branch="main")).splitlines()
    assert lines[:5] == [
        "HEAD detached at 0123456",
        "Default branch: main",
        "Rebase in progress: step 2/5, rebasing topic onto 0123456",
        "Bisect in progress",
        "",
    ]
    assert lines[5] == "Working tree clean; 3 stashes"


def test_bare_repository() -> None:
    body = text(Snapshot(None, bare_head="main", commits=(Commit(OID, "0123456", "s"),)))
    assert (
        body == "Bare repository (no working tree); HEAD is main\n\nRecent commits:\n  0123456 s\n"
    )


def test_untracked_not_checked_is_said() -> None:
    assert "untracked files not checked" in text(snap(), untracked_shown=False)


def test_full_listing_in_priority_order() -> None:
    entries = [
        Entry(EntryKind.UNTRACKED, "notes.txt", "?", "?"),
        Entry(EntryKind.ORDINARY, "a.py", ".", "M"),
        Entry(EntryKind.RENAMED, "new.py", "R", ".", orig_path="old.py", score=100),
        Entry(EntryKind.UNMERGED, "c.py", "U", "U"),
    ]
    body = text(snap(entries, commits=(Commit(OID, "0123456", "last"),)))
    assert body.split("\n\n")[1:] == [
        "Changes: 1 conflicted, 1 staged, 1 unstaged, 1 untracked",
        "Conflicted:\n  both modified: c.py",
        "Staged:\n  renamed: old.py -> new.py",
        "Unstaged:\n  modified: a.py",
        "Untracked:\n  notes.txt",
        "Recent commits:\n  0123456 last\n",
    ]


@pytest.fixture
def busy_repo(repo: Path) -> Path:
    """Many changes: 40 staged in src/auth, 30 unstaged in src/api, 20 untracked in docs."""
    for d in ("src/auth", "src/api"):
        (repo / d).mkdir(parents=True)
        for i in range(40):
            (repo / d / f"module_{i:02}.py").write_text(f"{i}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "modules")
    for i in range(6):
        commit_file(repo, f"log{i}.txt", "x\n", f"commit number {i}")
    for i in range(40):
        (repo / "src/auth" / f"module_{i:02}.py").write_text("changed\n")
    git(repo, "add", "src/auth")
    for i in range(30):
        (repo / "src/api" / f"module_{i:02}.py").write_text("changed\n")
    (repo / "docs").mkdir()
    for i in range(20):
        (repo / "docs" / f"page{i}.md").write_text("x\n")
    return repo


def busy_snapshot(repo: Path) -> Snapshot:
    layout = Git("git").discover(repo)
    assert layout is not None
    return Snapshotter(Git("git"), layout, untracked="all", recent_commits=5).take()


def test_lists_collapse_before_they_vanish(busy_repo: Path) -> None:
    """More budget shows more detail: counts, then groups by directory, then the entries of
    the list that costs the fewest lines first (issue 24 item 6: the budget goes where it
    shows the most)."""
    snapshot = busy_snapshot(busy_repo)
    counts = "Changes: 40 staged, 30 unstaged, 20 untracked"

    full = text(snapshot, 5000, max_entries=1000)
    assert "  modified: src/auth/module_00.py" in full
    assert "  docs/page0.md" in full
    assert "Token budget" not in full

    grouped = text(snapshot, 120)
    assert counts in grouped
    assert "Staged (by directory):\n  src/auth/: 40 modified" in grouped
    assert "Untracked (by directory):\n  docs/: 20 untracked" in grouped
    assert "lists grouped by directory" in grouped and "`git status`" in grouped

    partly = text(snapshot, 250, max_entries=1000)
    assert "Untracked:\n  docs/page0.md" in partly  # 20 lines: the cheapest list to show
    assert "Staged (by directory):\n  src/auth/: 40 modified" in partly
    assert "staged, unstaged grouped by directory" in partly

    counted = text(snapshot, 45)
    assert counts in counted
    assert "src/auth/" not in counted
    assert "only counted" in counted or "[Token budget: cut" in counted


def test_max_entries_groups_even_with_budget_to_spare(busy_repo: Path) -> None:
    snapshot = busy_snapshot(busy_repo)
    assert "src/auth/: 40 modified" in text(snapshot, 10_000, max_entries=10)
    assert "src/auth/: 40 modified" not in text(snapshot, 10_000, max_entries=100)


def test_commits_are_cut_last_with_a_note(busy_repo: Path) -> None:
    """Commits are the lowest priority: cut one by one, and the note says how many."""
    snapshot = busy_snapshot(busy_repo)
    seen = set()
    for budget in range(80, 130):
        body = text(snapshot, budget)
        kept = body.count(" commit number ")
        seen.add(kept)
        if kept < 5:
            left = 5 - kept
            assert f"{left} commit{'s' if left != 1 else ''} left out" in body
            assert "`git log`" in body
        else:
            assert "left out" not in body
    assert len(seen) >= 3


@pytest.mark.parametrize("counter", [FallbackCounter(), DenseCounter()])
def test_every_budget_is_respected(busy_repo: Path, counter: object) -> None:
    """A section never exceeds its budget by the kernel's own count, at any budget."""
    snapshot = busy_snapshot(busy_repo)
    shown = 0
    for budget in range(1, 700, 3):
        summary = summarize(snapshot, budget, counter, Options(max_entries=1000))  # type: ignore[arg-type]
        if summary is None:
            assert shown == 0, f"budget {budget} shows nothing after smaller ones did"
            continue
        shown += 1
        assert summary.tokens == counter.count(summary.text)  # type: ignore[attr-defined]
        assert summary.tokens <= budget
        assert summary.text.startswith("On branch main")
    assert shown > 0


def test_deterministic_whatever_the_entry_order(busy_repo: Path) -> None:
    snapshot = busy_snapshot(busy_repo)
    assert snapshot.status is not None
    entries = list(snapshot.status.entries)
    random.Random(7).shuffle(entries)
    shuffled = replace(snapshot, status=replace(snapshot.status, entries=tuple(entries)))
    assert shuffled != snapshot
    for budget in (60, 150, 400, 3000):
        assert text(snapshot, budget).encode() == text(shuffled, budget).encode()


paths = st.lists(
    st.text(alphabet=st.sampled_from('ab/ \n"é\t'), min_size=1, max_size=12).filter(
        lambda p: not p.startswith("/") and not p.endswith("/") and "//" not in p
    ),
    max_size=40,
    unique=True,
)


@settings(max_examples=60, deadline=None)
@given(
    paths=paths,
    kinds=st.lists(st.sampled_from("?MDAU"), min_size=40, max_size=40),
    budget=st.integers(min_value=0, max_value=400),
)
def test_property_budget_and_line_structure(
    paths: list[str], kinds: list[str], budget: int
) -> None:
    entries = []
    for path, kind in zip(paths, kinds, strict=False):
        if kind == "?":
            entries.append(Entry(EntryKind.UNTRACKED, path, "?", "?"))
        elif kind == "U":
            entries.append(Entry(EntryKind.UNMERGED, path, "U", "U"))
        else:
            entries.append(Entry(EntryKind.ORDINARY, path, kind, "."))
    summary = summarize(snap(entries), budget, FallbackCounter(), Options(max_entries=20))
    if summary is None:
        return
    assert summary.tokens <= budget
    starts = ("On branch", "Changes: ", "Working tree clean", "[Token budget")
    for line in summary.text.split("\n"):  # a raw newline in a path would start a stray line
        heading = re.fullmatch(r"[A-Z][a-z]+( commits)?( \(by [a-z -]+\))?:", line)
        assert line == "" or line.startswith(("  ", *starts)) or heading, line
        assert "\t" not in line
    listed = [line for line in summary.text.splitlines() if line.startswith("  ")]
    assert len(listed) <= len(entries) + 5
