"""Lists grouped at the deepest level that fits, subtree by subtree (issue 24 item 6).

"Group at the deepest level that fits, per subtree: 3,000 changes under
`test/built-ins/Array` and 200 under `test/intl402` become two or three lines at
the right depth ... not `test/: 3200 changed` ... more budget never shows less;
the same state gives byte-identical text."
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.git_status.git import Git
from providers.git_status.snapshot import Snapshot, Snapshotter
from providers.git_status.summarize import Options, summarize
from tests.git_status.repos import git

ARRAY = "test/built-ins/Array"
METHODS = ("concat", "every", "filter", "find", "map", "reduce", "some", "sort")
_GROUP = re.compile(r"  (\S+/): (\d+) [a-z]+")


def changed_tree(repo: Path, layout: Mapping[str, int]) -> None:
    """Commit ``count`` files in each directory of ``layout``, then modify every one."""
    for directory, count in layout.items():
        (repo / directory).mkdir(parents=True, exist_ok=True)
        for i in range(count):
            (repo / directory / f"t{i}.js").write_text("x\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tests")
    for directory, count in layout.items():
        for i in range(count):
            (repo / directory / f"t{i}.js").write_text("x\ny\n")


def take(repo: Path) -> Snapshot:
    layout = Git("git").discover(repo)
    assert layout is not None
    return Snapshotter(Git("git"), layout, untracked="normal", recent_commits=5).take()


def text(snapshot: Snapshot, budget: int) -> str:
    summary = summarize(snapshot, budget, FallbackCounter(), Options(max_entries=200))
    assert summary is not None
    assert summary.tokens <= budget
    return summary.text


def list_lines(body: str) -> list[str]:
    return [line for block in lists(body).values() for line in block]


def lists(body: str) -> dict[str, list[str]]:
    """Each list's lines by its name (``Staged``), commits left out."""
    found: dict[str, list[str]] = {}
    for block in body.split("\n\n"):
        heading, *lines = block.split("\n")
        name = heading.split(" (", 1)[0].removesuffix(":")
        if lines and name in ("Conflicted", "Staged", "Unstaged", "Untracked"):
            found[name] = lines
    return found


@pytest.fixture
def test262(repo: Path) -> Path:
    """480 changes under test/built-ins/Array in 10 directories, 100 under test/intl402 in 4,
    and one file of test/ itself."""
    layout = {f"{ARRAY}/prototype/{m}": 50 for m in METHODS}
    layout |= {f"{ARRAY}/from": 40, f"{ARRAY}/of": 40}
    layout |= {
        f"test/intl402/{n}": 25 for n in ("Collator", "DateTimeFormat", "Locale", "Segmenter")
    }
    layout["test"] = 1
    changed_tree(repo, layout)
    return repo


def test_each_subtree_at_the_deepest_level_that_fits(test262: Path) -> None:
    """Item 6: the default budget shows each leaf directory, never `test/: 581 modified`;
    a tight one shows the two subtrees at their own depth, not their common parent."""
    snapshot = take(test262)
    roomy = text(snapshot, 800)
    assert "  test/: " not in roomy
    for method in METHODS:
        assert f"  {ARRAY}/prototype/{method}/: 50 modified\n" in roomy
    assert f"  {ARRAY}/from/: 40 modified\n" in roomy
    assert "  test/intl402/Segmenter/: 25 modified\n" in roomy
    assert "  modified: test/t0.js\n" in roomy

    shown = [[line.strip() for line in list_lines(text(snapshot, b))] for b in range(40, 200, 2)]
    two_subtrees = [
        f"{ARRAY}/: 480 modified",
        "test/intl402/: 100 modified",
        "modified: test/t0.js",
    ]
    assert two_subtrees in shown
    assert shown.index(two_subtrees) > shown.index(["test/: 581 modified"])  # more budget


def test_a_directory_line_counts_what_no_deeper_line_shows(test262: Path) -> None:
    """Item 6: every change is counted on exactly one line, whatever the budget."""
    snapshot = take(test262)
    for budget in range(40, 900, 20):
        body = text(snapshot, budget)
        lines = list_lines(body)
        if not lines:
            continue
        groups = [int(found.group(2)) for line in lines if (found := _GROUP.fullmatch(line))]
        entries = len(lines) - len(groups)
        assert sum(groups) + entries == 581, body


def covers(outer: str, inner: str) -> bool:
    """Whether a line at a smaller budget (``outer``) counts what ``inner`` shows."""
    outer_group = _GROUP.fullmatch(outer)
    if outer_group is None:
        return outer == inner  # an entry is only ever itself
    directory = outer_group.group(1)
    found = _GROUP.fullmatch(inner)
    path = found.group(1) if found else inner.split(": ", 1)[-1].strip()
    return directory == "./" or path.startswith(directory)


def test_more_budget_never_shows_less(repo: Path) -> None:
    """Item 6: each budget's lines refine those of any smaller budget: every line is
    counted by a line that was there before (the same entry, or a directory above it)."""
    layout = {f"{ARRAY}/prototype/{m}": 12 for m in METHODS[:5]}
    layout |= {"src/api": 3, "src/api/v2": 9, "docs": 4, "lib/deep/er/still": 6}
    changed_tree(repo, layout)
    git(repo, "add", "src", "docs")
    (repo / "src/api/routes.py").write_text("new\n")
    snapshot = take(repo)
    before: dict[str, list[str]] = {}
    for budget in range(30, 700, 3):
        now = lists(text(snapshot, budget))
        assert set(now) >= set(before)
        for name, lines in now.items():
            old = before.get(name)
            assert old is None or len(lines) >= len(old)
            for line in lines:
                assert old is None or any(covers(o, line) for o in old), (budget, line, old)
        before = now


def test_same_state_same_bytes(test262: Path) -> None:
    """Item 6: two snapshots of one state render byte for byte alike at every budget."""
    first, second = take(test262), take(test262)
    for budget in (60, 120, 300, 800, 5000):
        assert text(first, budget).encode() == text(second, budget).encode()
