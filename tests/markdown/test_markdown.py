"""providers.markdown: stripping, imports and units, checked against markdown-it's own tokens.

Fixture files use markdown-it-py's format (title, input, ``.``, expected, ``.``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import read_fixture_file

from providers.core.types import Unit
from providers.markdown import (
    MarkdownImport,
    find_imports,
    normalise_newlines,
    split_front_matter,
    split_lines,
    split_units,
    strip_artifacts,
)
from providers.markdown import strip as strip_module
from providers.markdown.tokens import parse

FIXTURES = Path(__file__).parent / "fixtures" / "markdown"
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fixture_cases(name: str) -> list[Any]:
    return [
        pytest.param(given_text, expected, id=f"{line}-{title}")
        for line, title, given_text, expected in read_fixture_file(FIXTURES / name)
    ]


def describe_imports(imports: list[MarkdownImport]) -> str:
    return "".join(
        f"{i.line} {i.block_end} {'standalone' if i.standalone else 'inline'} {i.target}\n"
        for i in imports
    )


def describe_units(units: list[Unit]) -> str:
    return "".join(f"== [{unit.name}]\n{unit.text}" for unit in units)


@pytest.mark.parametrize(("source", "expected"), fixture_cases("strip_artifacts.md"))
def test_strip_fixture(source: str, expected: str) -> None:
    assert strip_artifacts(source) == expected


@pytest.mark.parametrize(("source", "expected"), fixture_cases("imports.md"))
def test_imports_fixture(source: str, expected: str) -> None:
    assert describe_imports(find_imports(source)) == expected


@pytest.mark.parametrize(("source", "expected"), fixture_cases("units.md"))
def test_units_fixture(source: str, expected: str) -> None:
    assert describe_units(split_units(source, "g")) == expected


# --- newlines -----------------------------------------------------------------


def test_normalise_newlines_like_markdown_it() -> None:
    assert normalise_newlines("a\r\nb\rc\nd\r\n\r") == "a\nb\nc\nd\n\n"
    # Characters str.splitlines() would break at stay inside their line.
    assert normalise_newlines("a\x0bb\x0cc\u2028d\x85e") == "a\x0bb\x0cc\u2028d\x85e"


def test_strip_crlf_and_lone_cr() -> None:
    crlf = "# T\r\n\r\n<!-- note -->\r\n\r\nBody <!-- x -->\r\nmore\r\n"
    assert strip_artifacts(crlf) == "# T\n\nBody\nmore\n"
    assert strip_artifacts(crlf.replace("\r\n", "\r")) == "# T\n\nBody\nmore\n"


def test_strip_empty_and_blank_inputs() -> None:
    assert strip_artifacts("") == ""
    assert strip_artifacts("\n\n  \n\t\n") == ""
    assert strip_artifacts("no newline at end") == "no newline at end\n"


def test_strip_keeps_unusual_characters_byte_exact() -> None:
    text = "a\0b \u2028 c\x0cd <!-- x --> e\u00a0\n"
    assert strip_artifacts(text) == "a\0b \u2028 c\x0cd e\u00a0\n"


def test_strip_when_the_parser_dropped_blank_looking_lines() -> None:
    # A form feed is not blank to markdown-it but str.strip() takes it from the
    # paragraph content, so the content starts a line later than the block.
    assert strip_artifacts("x\n\n\x0c\na <!-- c --> b\n") == "x\n\n\x0c\na b\n"


def test_strip_with_tabs_in_containers() -> None:
    assert strip_artifacts(">\t<!-- c -->\n>\tx\n") == ">\tx\n"
    assert strip_artifacts("- a\n\t<!-- x -->b\n") == "- a\n\tb\n"
    assert strip_artifacts("\t\tfoo <!-- x -->\n") == "\t\tfoo <!-- x -->\n"


# --- front matter ---------------------------------------------------------------


def test_split_front_matter() -> None:
    assert split_front_matter("---\na: 1\nb: [x]\n---\n# Body\n") == ("a: 1\nb: [x]", "# Body\n")
    assert split_front_matter("---\r\na: 1\r\n---\r\nbody") == ("a: 1", "body")
    assert split_front_matter("---\n---\nbody\n") == ("", "body\n")
    assert split_front_matter("---\na: 1\n---") == ("a: 1", "")


def test_front_matter_only_at_the_very_start() -> None:
    assert split_front_matter("\n---\na: 1\n---\n") == (None, "\n---\na: 1\n---\n")
    assert split_front_matter("x\r\n---\na\n---\n") == (None, "x\n---\na\n---\n")
    assert split_front_matter("---\nnever closed\n") == (None, "---\nnever closed\n")
    assert split_front_matter("---title\nx\n---\n") == (None, "---title\nx\n---\n")
    assert split_front_matter("") == (None, "")


def test_strip_removes_only_leading_front_matter() -> None:
    text = "---\na: 1\n---\nText\n\n---\nb: 2\n---\n"
    assert strip_artifacts(text) == "Text\n\n---\nb: 2\n---\n"


# --- imports -------------------------------------------------------------------


def test_import_lines_count_normalised_newlines() -> None:
    found = find_imports("one\r\ntwo\rthree @x.md\r\n\r\n@y.md")
    assert [(i.target, i.line, i.block_end, i.standalone) for i in found] == [
        ("x.md", 2, 3, False),
        ("y.md", 4, 5, True),
    ]


def test_imports_after_stripping_skip_comments() -> None:
    text = "<!-- @hidden.md -->\nSee @shown.md <!-- @also-hidden.md -->\n"
    assert [i.target for i in find_imports(text)] == ["shown.md"]
    assert [i.target for i in find_imports(strip_artifacts(text))] == ["shown.md"]


def test_import_at_start_of_text() -> None:
    assert find_imports("@a.md") == [MarkdownImport("a.md", 0, 1, True)]


# --- units -------------------------------------------------------------------------


def test_units_keep_original_line_endings() -> None:
    text = "# A\r\ntext\r\n\r\n- x\r- y\n"
    units = split_units(text, "AGENTS.md")
    assert [u.text for u in units] == ["# A\r\ntext\r\n\r\n", "- x\r", "- y\n"]
    assert [u.order for u in units] == [0, 1, 2]
    assert {u.group for u in units} == {"AGENTS.md"}
    assert [u.name for u in units] == ["# A", "# A", "# A"]


def test_units_of_empty_and_blank_text() -> None:
    assert split_units("", "g") == []
    assert split_units("\n \n", "g") == [Unit(text="\n \n", group="g", name="", order=0)]


def test_unit_names_use_the_heading_text_on_one_line() -> None:
    units = split_units("Multi\nline `code`\n===\n\nbody\n", "g")
    assert [u.name for u in units] == ["# Multi line `code`"]


def test_trailing_heading_is_its_own_unit() -> None:
    units = split_units("para\n\n## End\n", "g")
    assert [(u.name, u.text) for u in units] == [("", "para\n\n"), ("## End", "## End\n")]


def test_split_lines() -> None:
    units = split_lines("a\r\nb\rc\n\x0cd\u2028e", ".cursorrules")
    assert [u.text for u in units] == ["a\r\n", "b\r", "c\n", "\x0cd\u2028e"]
    assert [u.order for u in units] == [0, 1, 2, 3]
    assert all(u.name == "" and u.group == ".cursorrules" for u in units)
    assert split_lines("", "g") == []
    assert [u.text for u in split_lines("\n\n", "g")] == ["\n", "\n"]


# --- properties ---------------------------------------------------------------------

FRAGMENTS = [
    "<!--", "-->", "<!-- x -->", "```", "~~~", "    ", "\t", "\n", "\n\n", "\r\n", "\r",
    "- ", "1. ", "> ", "# ", "## ", "===", "---", "`", "``", "@a.md", "@", "(", "a@b.c",
    "<div>", "</div>", "<pre>", "*", "_", "[x](y)", "![i](j)", "\\", "\0", "\x0c", "\u2028",
    "&amp;", " ", "x", "word",
]  # fmt: skip
markdownish = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=40).map(
    "".join
)
any_text = st.one_of(st.text(max_size=200), markdownish)


def trimmed(text: str) -> str:
    lines = normalise_newlines(text).split("\n")
    while lines and not lines[-1].strip(" \t"):
        lines.pop()
    while lines and not lines[0].strip(" \t"):
        lines.pop(0)
    return "\n".join(lines) + "\n" if lines else ""


@PROPERTY
@given(any_text)
def test_everything_is_total(text: str) -> None:
    stripped = strip_artifacts(text)
    assert stripped == "" or (stripped.endswith("\n") and not stripped.endswith("\n\n"))
    assert stripped == "" or stripped.split("\n", 1)[0].strip(" \t")
    front, body = split_front_matter(text)
    assert front is None or isinstance(front, str)
    assert normalise_newlines(text).endswith(body)
    for found in find_imports(text):
        assert found.target and found.line < found.block_end
    assert "".join(u.text for u in split_units(text, "g")) == text
    assert "".join(u.text for u in split_lines(text, "g")) == text
    units = split_units(text, "g")
    assert [u.order for u in units] == list(range(len(units)))
    assert all(u.text for u in units)


@PROPERTY
@given(any_text)
def test_text_without_artifacts_is_kept_byte_for_byte(text: str) -> None:
    normalised = normalise_newlines(text)
    if "<!--" in text or normalised.lstrip("\n").startswith("---"):
        return
    assert strip_artifacts(text) == trimmed(text)


def tokens(text: str) -> list[Token]:
    flat: list[Token] = []
    for token in MarkdownIt("commonmark").parse(text):
        flat.append(token)
        flat.extend(token.children or ())
    return flat


def code_contents(text: str) -> list[str]:
    """What fenced and indented code blocks hold (trailing blanks aside)."""
    return [t.content.rstrip(" \t\n") for t in tokens(text) if t.type in ("fence", "code_block")]


def comments(text: str, kind: str) -> list[str]:
    return [t.content for t in tokens(text) if t.type == kind and "<!--" in t.content]


words = st.lists(
    st.sampled_from(["alpha", "beta", "`<!-- c -->`", "@x.md", "*em*", "`@in-code.md`"]),
    min_size=1,
)
inline_comment = st.sampled_from(
    ["<!-- n -->", "<!-- two\nlines -->", "<!-- @in-comment.md -->", ""]
)
paragraph = st.builds(lambda a, c, b: " ".join([*a, c, *b]).strip(), words, inline_comment, words)
comment_block = st.sampled_from(
    ["<!-- block -->", "<!--\nmulti\n-->", "  <!-- indented -->", "<!--\n@in-comment.md\n-->"]
)
fence_body = st.lists(
    st.sampled_from(["<!-- x -->", "code", "", "  <!-- y\n  -->", "@in-code.md"]), max_size=4
)
fence = st.builds(lambda lines, mark: f"{mark}\n" + "".join(f"{x}\n" for x in lines) + mark,
                  fence_body, st.sampled_from(["```", "~~~", "````"]))  # fmt: skip
# Indented code cannot interrupt a paragraph: it always follows a blank line.
indented = st.sampled_from(
    ["    <!-- kept -->\n    code", "    x <!-- y -->", "    @in-code.md"]
).map(lambda code: "\n" + code)
heading = st.builds(lambda level, text: "#" * level + " " + text, st.integers(1, 3), paragraph)
block = st.one_of(paragraph, comment_block, fence, indented, heading)
item = st.builds(lambda b: "- " + b.replace("\n", "\n  "), block)
quoted = st.builds(lambda b: "> " + b.replace("\n", "\n> "), block)
document = st.lists(
    st.tuples(st.one_of(block, item, quoted), st.sampled_from(["\n", "\n\n", "\r\n\r\n"])),
    max_size=8,
).map(lambda parts: "".join(b + sep for b, sep in parts))


@PROPERTY
@given(document)
@example("alpha <!-- n --> alpha\n- <!-- block -->\n\n    <!-- kept -->\n    code\n")
@example(
    "alpha <!-- n --> alpha\n- <!-- block -->\n<!-- block -->\n\n    <!-- kept -->\n    code\n"
)
def test_stripping_keeps_code_and_removes_comments(text: str) -> None:
    stripped = strip_artifacts(text)
    assert code_contents(stripped) == code_contents(text)
    assert comments(stripped, "html_inline") == []
    if comments(stripped, "html_block"):
        # Comment blocks are kept only where removing them would change code (make
        # code that was not there, or unmake it); those ending a list before
        # indented code stay on purpose (the CommonMark idiom).
        further, _ = strip_module._strip(
            stripped, parse(stripped), keep_blocks=False, front_matter=False
        )
        assert further == stripped or code_contents(further) != code_contents(text)
    assert strip_artifacts(stripped) == stripped


@PROPERTY
@given(document)
def test_units_rejoin_and_name_sections(text: str) -> None:
    units = split_units(text, "doc.md")
    assert "".join(u.text for u in units) == text
    for unit in units:
        opening = normalise_newlines(unit.text).lstrip("\n").split("\n", 1)[0]
        if opening.startswith("#"):
            assert " ".join(opening.split()) in unit.name.split(" > ")


@PROPERTY
@given(document)
def test_imports_never_come_from_code_or_comments(text: str) -> None:
    for source in (text, strip_artifacts(text)):
        code_lines = {
            line
            for token in MarkdownIt("commonmark").parse(source)
            if token.type in ("fence", "code_block") and token.map
            for line in range(*token.map)
        }
        for found in find_imports(source):
            assert found.target != "in-comment.md"
            assert found.line not in code_lines
    if "@x.md" in text:
        assert "x.md" in [found.target for found in find_imports(strip_artifacts(text))]


def test_mentions_are_not_imports() -> None:
    """A bare ``@word`` is a mention or a decorator; imports name files."""
    found = find_imports("Thanks @alice and @bob.\n\nSee @docs/x.md and @AGENTS.md.\n\n@./y\n")
    assert [i.target for i in found] == ["docs/x.md", "AGENTS.md", "./y"]
