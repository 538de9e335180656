"""Issue 28 item 1: each fact a host reads back from a section's text is written and read
in one module (core/section_text.py); each writer/reader pair round-trips here, and the
providers' own sections go through the same writers (tests/file_tree, tests/scoped_docs)."""

from __future__ import annotations

import pytest

from providers.core.section_text import (
    ALWAYS_APPLIES,
    applies_to,
    doc_label,
    doc_path,
    short_doc_label,
    tree_counts,
    tree_totals,
    tree_totals_line,
)


@pytest.mark.parametrize(
    "path", ["AGENTS.md", "src/auth/AGENTS.md", "a (b).md", "docs/applies to.md", "x/y z.mdc"]
)
@pytest.mark.parametrize("touched", ["src/a.py", "src/b (copy).py"])
def test_a_doc_label_gives_back_its_path(path: str, touched: str) -> None:
    assert doc_path(doc_label(path, ALWAYS_APPLIES)) == path
    assert doc_path(doc_label(path, applies_to(touched, "src/**"))) == path


@pytest.mark.parametrize("path", ["AGENTS.md", "a (b).md", 'x "y".md'])
def test_a_short_doc_label_keeps_the_path_and_the_glob(path: str) -> None:
    """Issue 29 item 5: the bridge frames a doc with its path and glob only."""
    assert short_doc_label(doc_label(path, applies_to("src/a (1).py", "src/**"))) == (
        f"{path} (for src/**)"
    )
    nested = doc_label(f"src/{path}", applies_to("src/a.py", "src/**"))
    assert short_doc_label(nested) == f"src/{path}"  # its own folder: the path says it
    assert short_doc_label(doc_label(path, applies_to("a.py", "**"))) == path
    always = doc_label(path, ALWAYS_APPLIES)
    assert short_doc_label(always) == always
    assert short_doc_label("scoped docs index") == "scoped docs index"


def test_a_label_of_no_doc_is_its_own_path() -> None:
    assert doc_path("scoped docs index") == "scoped docs index"


@pytest.mark.parametrize("listed", [True, False])
@pytest.mark.parametrize(
    "notes", ["", "; 1 unreadable dir skipped", "; partial: the listing stopped"]
)
def test_the_totals_line_gives_back_what_is_present(listed: bool, notes: str) -> None:
    text = "src/\n  a.py\n" + tree_totals_line(
        (3, 12_345), (2, 40), files_listed=listed, notes=notes
    )
    same = "other/\n" + tree_totals_line((1, 12_345), (1, 40), files_listed=listed, notes=notes)
    more = tree_totals_line((3, 12_346), (2, 40), files_listed=listed, notes=notes)
    assert tree_totals(text) and tree_totals(text) == tree_totals(same)  # shown is not read
    assert tree_totals(more) != tree_totals(text)  # a file more present is


def test_a_text_without_totals_reads_as_none() -> None:
    assert tree_totals("src/\n  a.py\n") == ""


@pytest.mark.parametrize("listed", [True, False])
def test_the_counts_come_back_as_written(listed: bool) -> None:
    line = tree_totals_line((3, 12_345), (2, 40), files_listed=listed, notes="; 1 skipped")
    counts = tree_counts("a/\n" + line)
    assert counts is not None and counts.dirs == (2, 40) and counts.files[1] == 12_345
    assert counts.files_listed is listed and not counts.whole
    whole = tree_counts(tree_totals_line((9, 9), (4, 4), files_listed=True))
    assert whole is not None and whole.whole
