"""Issue 15 item 2: a YAML bomb in front matter is a note, never a turn past the deadline.
Front matter is bounded (size, depth, values after alias expansion) before anything is built."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.rules.frontmatter import (
    MAX_DEPTH,
    MAX_FRONT_MATTER_BYTES,
    FrontMatterError,
    parse_front_matter,
)
from providers.scoped_docs.provider import ScopedDocsProvider


def laughs(levels: int = 9) -> str:
    """The classic alias bomb: 9 ** ``levels`` strings from a few hundred bytes."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        name, prev = chr(ord("a") + i), chr(ord("a") + i - 1)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (laughs(), "expands to over"),
        ("a: &x [*x]\n", "refers to itself"),
        ("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n", "nested deeper"),
        ("a: '" + "x" * MAX_FRONT_MATTER_BYTES + "'\n", "larger than"),
    ],
)
def test_unbounded_front_matter_is_refused_quickly(raw: str, why: str) -> None:
    started = time.monotonic()
    with pytest.raises(FrontMatterError, match=why):
        parse_front_matter(raw, ("globs",))
    assert time.monotonic() - started < 0.5


def test_ordinary_front_matter_and_shared_aliases_still_read() -> None:
    assert parse_front_matter("globs: *.ts\n", ("globs",)) == {"globs": "*.ts"}
    shared = "x: &p ['src/**']\nglobs: *p\n"
    assert parse_front_matter(shared, ("globs",)) == {"x": ["src/**"], "globs": ["src/**"]}


def test_a_bomb_rule_is_a_note_and_the_other_rules_apply(tmp_path: Path) -> None:
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "bomb.mdc").write_text("---\n" + laughs() + "globs: src/**\n---\nBOOM\n")
    (rules / "fine.mdc").write_text("---\nglobs: src/**\n---\nFine rule\n")
    provider = ScopedDocsProvider(watcher_factory=None)
    try:
        provider.configure({"watch": False})
        started = time.monotonic()
        answer = contribute(
            provider,
            ContextRequest(2000, str(tmp_path), ModelTarget("m"), files_touched=("src/a.py",)),
            FallbackCounter(),
        )
        assert time.monotonic() - started < 2
    finally:
        provider.close()
    text = "".join(s.text for s in answer.sections)
    assert "Fine rule" in text and "BOOM" not in text
    assert ".cursor/rules/bomb.mdc: not applied, front matter expands to over" in text
