"""providers.markdown.lines: one line-break rule, the one markdown-it applies.

design.md principle 4: normalise newlines the way markdown-it does
(``\\r\\n?`` -> ``\\n``), not with ``str.splitlines()``. The three views of
the lines (normalised text, lines without breaks, offsets in the original)
must agree, or a unit cut and a token map would point at different lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.rules_core.normalize import NEWLINES_RE

from providers.markdown import lines as lines_module
from providers.markdown.lines import line_offsets, normalise_newlines, source_lines
from providers.markdown.tokens import parse

PACKAGE = Path(lines_module.__file__).parent
# Line breaks, and characters str.splitlines() breaks at but markdown does not.
TEXT = st.text(alphabet=st.sampled_from("ab \t#-*\r\n\x0b\x0c\x1c\x85\u2028\u2029"), max_size=40)
PROPERTY = settings(max_examples=300, deadline=None)


@PROPERTY
@given(TEXT)
def test_normalise_is_markdown_its_own(text: str) -> None:
    assert normalise_newlines(text) == NEWLINES_RE.sub("\n", text)


@PROPERTY
@given(TEXT)
def test_offsets_and_source_lines_count_the_same_lines(text: str) -> None:
    offsets = line_offsets(text)
    lines = source_lines(normalise_newlines(text))
    assert len(offsets) - 1 == len(lines)
    assert offsets[0] == 0
    assert offsets[-1] == len(text)
    for i, line in enumerate(lines):
        written = text[offsets[i] : offsets[i + 1]]
        assert normalise_newlines(written).removesuffix("\n") == line


@PROPERTY
@given(TEXT)
def test_token_maps_stay_within_the_source_lines(text: str) -> None:
    normalised = normalise_newlines(text)
    count = len(source_lines(normalised))
    for token in parse(normalised):
        if token.map is not None:
            assert 0 <= token.map[0] <= token.map[1] <= count


def test_trailing_newline_opens_no_line() -> None:
    assert source_lines("") == []
    assert source_lines("a\n") == ["a"]
    assert source_lines("a\n\n") == ["a", ""]
    assert line_offsets("") == [0]
    assert line_offsets("a\r\n") == [0, 3]
    assert line_offsets("a\r\rb") == [0, 2, 3, 4]


def test_no_other_module_splits_lines_its_own_way() -> None:
    """lines.py owns the rule: no other module of the package names ``\\r`` or splitlines()."""
    offenders: list[str] = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "lines.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if "\r" in node.value:
                    offenders.append(f"{path.name}:{node.lineno} names \\r")
            elif isinstance(node, ast.Attribute) and node.attr == "splitlines":
                offenders.append(f"{path.name}:{node.lineno} calls splitlines()")
    assert not offenders, offenders
