"""Issue 20 item 5: markdown shaped to be slow costs time linear in its size, and a text
past the parser's work cap is refused within about a second, the same way every time.

Timings are CPU seconds of this process (the machine is shared: wall time is noise);
growth is judged over a tenfold input, where linear is ~10x and quadratic ~100x.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from providers.core.left_out import left_out_note
from providers.core.types import Unit
from providers.markdown import (
    MAX_PARSE_WORK,
    MarkdownTooComplex,
    find_imports,
    split_front_matter,
    split_lines,
    split_units,
    strip_artifacts,
)
from providers.markdown.lines import normalise_newlines, source_lines
from providers.markdown.tokens import front_matter_end, parse, parser_view

SUB_QUADRATIC = 30.0
"""Most a tenfold input may multiply the cost by (linear ~10, quadratic ~100)."""


def cpu(call: Callable[[], object]) -> float:
    """Least CPU time of three runs."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        call()
        best = min(best, time.process_time() - started)
    return max(best, 1e-4)


SHAPES: dict[str, Callable[[int], str]] = {
    "headings": lambda n: "".join(f"# heading {i}\n" for i in range(n)),
    "brackets": lambda n: "[" * (n * 10) + "\n",
    "bare CR runs": lambda n: "# t\r" + "line\r\r\r" * n,
    "comment blocks": lambda n: "<!-- x -->\n" * n + "text\n",
    "star runs": lambda n: "*" * (n * 5) + "a" + "*" * (n * 5) + "\n",
    "nested quotes": lambda n: "".join(">" * (i % 20) + " a\n" for i in range(n)),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_stripping_imports_and_units_grow_linearly(shape: str) -> None:
    """Issue 20 item 5: 40,000 headings, 500,000 ``[``, runs of bare ``\\r``: a turn's
    markdown work grows with the text, not with its square (comment blocks in a row and
    the left-out note's heading list were quadratic)."""
    make = SHAPES[shape]

    def work(n: int) -> Callable[[], object]:
        text = make(n)

        def run() -> None:
            try:
                stripped = strip_artifacts(text)
                find_imports(stripped)
            except MarkdownTooComplex:
                stripped = text
            units = split_units(stripped, "AGENTS.md")
            left_out_note(units, how_to_read="read the file")

        return run

    small, large = cpu(work(300)), cpu(work(3000))
    assert large / small < SUB_QUADRATIC, f"{shape}: x{large / small:.0f} for a tenfold text"


@pytest.mark.parametrize(
    ("shape", "text"),
    [
        ("40,000 headings", "".join(f"# h{i}\n" for i in range(40_000))),
        ("500,000 brackets", "[" * 500_000),
        ("500,000 bare CRs", "a" + "\r" * 500_000),
        ("250,000 CR lines", "a\r" * 250_000),
        ("a 400,000-star run", "*" * 200_000 + "a" + "*" * 200_000),
    ],
)
def test_issue_sizes_are_refused_within_a_second(shape: str, text: str) -> None:
    """Issue 20 item 5 at the issue's sizes: a parse past MAX_PARSE_WORK stops within a
    second of CPU (each took 10 s to minutes), and the refusal is the same every time."""
    normalised = normalise_newlines(text)
    verdicts = []
    for _ in range(2):
        started = time.process_time()
        try:
            parse(normalised)
            verdicts.append("parsed")
        except MarkdownTooComplex as exc:
            verdicts.append(str(exc))
        assert time.process_time() - started < 1.0, shape
    assert verdicts[0] == verdicts[1] == f"over {MAX_PARSE_WORK:,} units of markdown parser work"


def test_units_of_a_text_too_complex_are_its_lines() -> None:
    """Issue 20 item 5: split_units stays total; past the cap it cuts by line, as it does
    text that is not markdown, so the budget still keeps whole lines from the top."""
    text = "".join(f"# h{i}\n" for i in range(50_000))
    assert split_units(text, "AGENTS.md") == split_lines(text, "AGENTS.md")


def test_the_left_out_note_names_each_heading_once_in_order() -> None:
    """Issue 20 item 5: the note's heading list is an ordered set (it was a list searched
    for every unit: 40,000 headings took most of a turn), with the same output."""
    units = [Unit("", "AGENTS.md", f"# A > ## {i % 50}") for i in range(5000)]
    note = left_out_note(units, how_to_read="read it")
    assert note.count("## 0,") == 1
    assert "# A (## 0, ## 1, ## 2," in note


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(["---", "----", "- a", "...", "a: 1", "  - b", "", "    ---", "x"]),
        max_size=12,
    ),
    st.sampled_from(["", "# body\n", "---\nmore\n"]),
)
def test_front_matter_found_from_its_head_equals_the_whole_parse(
    lines: list[str], body: str
) -> None:
    """Issue 20 item 7: a rule file's front matter is found by parsing only the lines up to
    its closing fence (rule files were parsed whole twice each); the answer is the
    whole-text parse's, whatever the lines."""
    text = "\n".join(lines) + "\n" + body
    normalised = normalise_newlines(text)
    view = [parser_view(line) for line in source_lines(normalised)]
    end = front_matter_end(parse(normalised), view)
    whole = (None, normalised) if end == 0 else None
    raw, rest = split_front_matter(text)
    if whole is not None:
        assert (raw, rest) == whole
    else:
        assert raw == "\n".join(source_lines(normalised)[1 : end - 1])
