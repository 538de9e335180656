"""The section within the budget: the form, the counts, the ranking and the budget invariants."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from providers.core.budget import FallbackCounter
from providers.core.types import Section, Stability
from providers.file_tree.plan import plan
from providers.file_tree.section import Presentation, build_section
from providers.file_tree.tree import Tree
from providers.file_tree.tree_text import TreeText, counts, display
from tests.file_tree.helpers import shown_paths

ROOT = "/work/repo"
CHUNK = 16
TOTALS = re.compile(r"^\(shown: ([\d,]+) of ([\d,]+) files, ([\d,]+) of ([\d,]+) dirs")


def section(
    tree: Tree,
    budget: int,
    touched: Sequence[str] = (),
    *,
    counter: object = None,
    **presentation: object,
) -> Section | None:
    return build_section(
        tree,
        Presentation(ROOT, **presentation),  # type: ignore[arg-type]
        touched,
        budget,
        counter or FallbackCounter(),  # type: ignore[arg-type]
    )


def generated(seed: int, files: int = 400) -> Tree:
    rng = random.Random(seed)
    words = ["src", "lib", "test", "docs", "api", "core", "util", "x", "deep", "vendor"]
    paths = set()
    for _ in range(files):
        depth = rng.randint(0, 5)
        parts = [rng.choice(words) + str(rng.randint(0, 3)) for _ in range(depth)]
        paths.add("/".join([*parts, f"f{rng.randint(0, 60)}.py"]))
    return Tree.of(paths)


# The form ------------------------------------------------------------------


def test_collapse_line_and_totals_format() -> None:
    """A collapsed directory is one line with its counts; the section ends with totals."""
    paths = [f"vendor/pkg{i % 37}/f{i}.js" for i in range(1204)]
    tree = Tree.of([*paths, "README.md", "src/main.py", "src/util.py"])
    result = section(tree, 30)
    assert result is not None
    assert result.text == (
        "/work/repo/\n"
        "  src/ (2 files)\n"
        "  vendor/ (1,204 files, 37 dirs)\n"
        "  README.md\n"
        "(shown: 1 of 1,207 files, 2 of 39 dirs)\n"
    )
    assert result.truncated
    assert result.label == "file tree"
    assert result.stability is Stability.DYNAMIC


def test_counts_wording() -> None:
    assert counts(1, 0) == "1 file"
    assert counts(2, 1) == "2 files, 1 dir"
    assert counts(1204, 37) == "1,204 files, 37 dirs"


def test_odd_names_are_quoted_one_line_each() -> None:
    assert display("plain name.txt") == "plain name.txt"
    assert display("new\nline") == '"new\\nline"'
    assert display(" lead") == '" lead"'
    assert display('q"uote') == '"q\\"uote"'
    assert display("bad-\udcff") == '"bad-\\\\xff"'
    tree = Tree.of(["new\nline", "tab\there", "ünï"])
    result = section(tree, 1000)
    assert result is not None
    assert result.text.count("\n") == 5


def test_more_line_for_a_big_directory() -> None:
    tree = Tree.of([f"big/f{i:03}.txt" for i in range(100)] + ["big/sub/x.py"])
    tree_text = TreeText(tree, ROOT, show_files=True, unreadable=0)
    planned = plan(tree, tree_text, (), None, 4 * 10_000)
    assert planned.exhausted
    partial = TreeText(tree, ROOT, show_files=True, unreadable=0)
    steps = [step for group in (planned.base, *planned.groups) for step in group]
    for step in steps:
        partial.apply(step)
        if partial.shown_files == CHUNK - 1:  # sub/ and 15 files: the first chunk of big/
            break
    text = partial.text()
    assert "    ... 85 more files\n" in text
    assert "    sub/ (1 file)\n" in text
    assert "\n  ... " not in text


def test_unreadable_directories_are_reported() -> None:
    result = section(Tree.of(["a"]), 100, unreadable=3)
    assert result is not None
    assert result.text.endswith("; 3 unreadable dirs skipped)\n")


# Budget behaviour ------------------------------------------------------------


def test_small_budget_shows_the_top_level_with_counts() -> None:
    tree = generated(1)
    text = section(tree, 120)
    assert text is not None
    lines = text.text.splitlines()
    assert all(line.startswith("  ") and not line.startswith("    ") for line in lines[1:-1])
    assert any(re.search(r"/ \([\d,]+ files?", line) for line in lines[1:-1])


def test_large_budget_shows_everything() -> None:
    tree = generated(2)
    result = section(tree, 100_000)
    assert result is not None
    assert not result.truncated
    assert "..." not in result.text
    match = TOTALS.match(result.text.splitlines()[-1])
    assert match is not None
    assert match.group(1) == match.group(2) and match.group(3) == match.group(4)
    every = {p for p in tree.paths()}
    dirs = {p.rsplit("/", i)[0] + "/" for p in every for i in range(1, p.count("/") + 1)}
    assert shown_paths(result.text) == every | dirs


def test_budget_too_small_for_anything() -> None:
    assert section(generated(3), 5) is None
    assert section(generated(3), 0) is None


def test_tree_text_size_is_exact_after_every_step() -> None:
    """The planner's byte arithmetic equals the rendered text, step by step."""
    for seed in range(3):
        tree = generated(seed, 120)
        touched = ["src1/lib2/f3.py", "nope/x.py", sorted(tree.paths())[seed * 7]]
        for show_files in (True, False):
            tree_text = TreeText(tree, ROOT, show_files=show_files, unreadable=2)
            planned = plan(tree, tree_text, touched, None, 10**9)
            replay = TreeText(tree, ROOT, show_files=show_files, unreadable=2)
            assert replay.size == len(replay.text(fold=False).encode())
            assert len(replay.text().encode()) <= replay.size  # folding only shortens
            for group in (planned.base, *planned.groups):
                for step in group:
                    replay.apply(step)
                    assert replay.size == len(replay.text(fold=False).encode())
            sizes = [planned.base_size, *planned.sizes]
            assert sizes == sorted(sizes), "group sizes must never shrink"


@pytest.mark.parametrize("seed", range(3))
def test_more_budget_never_shows_less(seed: int) -> None:
    """context-conformance.md: "Self-truncation/summarization to fit token_budget: MUST".

    For every budget: tokens <= budget, and the entries shown at a budget are
    a subset of those shown at any larger one.
    """
    tree = generated(seed, 250)
    touched = sorted(tree.paths())[seed::97]
    previous: set[str] = set()
    for budget in range(1, 1500, 13):
        result = section(tree, budget, touched)
        if result is None:
            assert not previous
            continue
        assert result.tokens <= budget
        assert result.tokens == math.ceil(len(result.text.encode()) / 4)
        shown = shown_paths(result.text)
        assert previous <= shown, budget
        previous = shown


class DenseCounter:
    """A tokenizer twice as dense as the fallback estimate (the kernel's count is the judge)."""

    epoch = 0

    def count(self, text: str) -> int:
        return math.ceil(len(text.encode()) / 2)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]


def test_a_denser_tokenizer_is_still_within_budget() -> None:
    tree = generated(5)
    for budget in (60, 100, 400, 1000):
        result = section(tree, budget, counter=DenseCounter())
        assert result is not None
        assert result.tokens <= budget
        assert result.tokens == DenseCounter().count(result.text)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "b", "c", "d", "e.py", "f.md"]), min_size=1, max_size=5),
        max_size=40,
    ).map(lambda parts: sorted({"/".join(p) for p in parts})),
    st.integers(min_value=1, max_value=400),
    st.lists(st.sampled_from(["a/b/e.py", "c/d/f.md", "e.py", "zz/q"]), max_size=2),
    st.booleans(),
)
def test_budget_properties(paths: list[str], budget: int, touched: list[str], files: bool) -> None:
    """Hypothesis: within budget, and one more token never shows fewer entries."""
    clean = [p for p in paths if not any(q.startswith(p + "/") for q in paths)]
    tree = Tree.of(clean)
    small = section(tree, budget, touched, show_files=files)
    large = section(tree, budget + 1, touched, show_files=files)
    if small is None:
        return
    assert small.tokens <= budget
    assert large is not None and large.tokens <= budget + 1
    assert shown_paths(small.text) <= shown_paths(large.text)


# Ranking -----------------------------------------------------------------------


def test_touched_file_deep_in_a_big_directory_is_shown_first() -> None:
    """files_touched and their directories are expanded before anything else."""
    paths = [f"pkg/mod{i:04}.py" for i in range(2000)] + [f"other{i}/x.py" for i in range(30)]
    paths.append("pkg/sub/deep/target.py")
    tree = Tree.of(paths)
    result = section(tree, 200, ["pkg/mod1500.py", "pkg/sub/deep/target.py"])
    assert result is not None
    shown = shown_paths(result.text)
    assert {"pkg/", "pkg/mod1500.py", "pkg/sub/", "pkg/sub/deep/target.py"} <= shown
    assert "... " in result.text  # the rest of pkg is summarised, not dropped


def test_breadth_first_after_the_root() -> None:
    tree = Tree.of(["a/b/c/d/e.py", "z/y.py"])
    result = section(tree, 40)
    assert result is not None
    assert "z/" in result.text


def test_max_depth_bounds_breadth_first_but_not_touched_paths() -> None:
    tree = Tree.of(["a/b/c.py", "x/y/z.py", "top.txt"])
    result = section(tree, 1000, ["x/y/z.py"], max_depth=1)
    assert result is not None
    text = result.text
    assert "  a/ (1 file, 1 dir)\n" in text
    assert "  x/y/z.py\n" in text  # a single-child chain, folded
    assert not result.truncated  # a configured limit is not a budget cut
    root_only = section(tree, 1000, max_depth=0)
    assert root_only is not None
    assert root_only.text.splitlines()[0] == "/work/repo/ (3 files, 4 dirs)"


def test_directories_only() -> None:
    tree = Tree.of(["a/b/c.py", "a/d.py", "e.py"])
    result = section(tree, 1000, show_files=False)
    assert result is not None
    assert result.text == (
        "/work/repo/ (3 files, 2 dirs)\n"
        "  a/ (2 files, 1 dir)\n"
        "    b/ (1 file)\n"
        "(shown: 2 of 2 dirs; files not listed: 3)\n"
    )


def test_chunks_reveal_wide_directories_gradually() -> None:
    tree = Tree.of([f"wide/f{i:03}" for i in range(CHUNK * 3)] + ["other/x"])
    budgets = [section(tree, b) for b in (60, 120, 400)]
    shown = [len(shown_paths(s.text)) for s in budgets if s is not None]
    assert shown == sorted(shown) and shown[0] < shown[-1]
