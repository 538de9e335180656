"""The pure render model: the payload checks every Render passes through, the markdown
section shape (the spec's collapsible example), and the outline the preview prints."""

from __future__ import annotations

import pytest

from providers.core.errors import ErrorCategory, ProviderError
from providers.core.render_tree import (
    SCHEMA_VERSION,
    CodeBlock,
    Collapsible,
    Group,
    ListNode,
    Node,
    SectionPayload,
    Text,
    TextStyle,
    check_schema_version,
    markdown_section,
    outline,
    render_section,
)


def test_schema_version_one_is_ours_and_nothing_else() -> None:
    """RenderRequest.schema_version "1": one of our ContextSections, serialized."""
    assert SCHEMA_VERSION == "1"
    check_schema_version("1")
    for other in ("", "2", "v1", "1 "):
        with pytest.raises(ProviderError) as info:
            check_schema_version(other)
        assert info.value.category is ErrorCategory.INVALID_REQUEST
        assert repr(other) in info.value.message


def test_only_our_own_sections_reach_the_provider() -> None:
    calls: list[tuple[str, str]] = []

    def render(label: str, text: str) -> Node:
        calls.append((label, text))
        return Text(text)

    assert render_section(render, SectionPayload("me", "l", "t"), "me") == Text("t")
    with pytest.raises(ProviderError) as info:
        render_section(render, SectionPayload("someone", "l", "t"), "me")
    assert info.value.category is ErrorCategory.INVALID_REQUEST
    assert "'someone', not 'me'" in info.value.message
    assert calls == [("l", "t")]


def test_markdown_is_one_collapsed_code_block_under_the_label() -> None:
    text = "# Title\n\n```sh\n\nmake\n```\n"
    assert markdown_section("AGENTS.md", text) == Collapsible(
        "AGENTS.md", (CodeBlock(text, "markdown"),), collapsed_by_default=True
    )


def test_outline_shows_structure_styles_and_state() -> None:
    tree = Group(
        (
            Text("title", TextStyle.BOLD),
            Text("two\nlines", TextStyle.DIM),
            ListNode((Text("a"), Collapsible("dir/", (ListNode((Text("b"),)),), False))),
            ListNode((Text("first"), Text("second")), ordered=True),
            Collapsible("doc", (CodeBlock("x\n\ny\n", "markdown"),)),
            ListNode(()),
            Collapsible("empty", ()),
        )
    )
    assert outline(tree) == (
        "<bold> title\n"
        "<dim> two\n"
        "      lines\n"
        "- a\n"
        "- [-] dir/\n"
        "    - b\n"
        "1. first\n"
        "2. second\n"
        "[+] doc\n"
        "  ```markdown\n"
        "  x\n"
        "\n"
        "  y\n"
        "  ```\n"
        "[+] empty\n"
    )


def test_the_model_is_frozen() -> None:
    node = Text("x")
    with pytest.raises(AttributeError):
        node.content = "y"  # type: ignore[misc]
