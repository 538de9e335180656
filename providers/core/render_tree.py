"""What a section looks like to a person: the render tree the optional Render RPC returns.

The spec's MAY (``ContextService.Render``): a frontend sends back a payload and
gets a tree to paint. Ours is schema_version :data:`SCHEMA_VERSION`: the
payload is one of our own sections, and the tree is built from its label and
text by the provider that wrote it (its optional ``render`` method,
:class:`providers.core.provider.RenderHook`). The nodes mirror the subset of
``pluggableharness.render.v1`` we use; ``goplugin.convert`` maps them to the
wire. Pure: no protobuf here.

:func:`render_section` is the one way a payload reaches a provider: a version
we do not write, or a section that is not ours (its ``provider`` is not the
name our sections are stamped with), is ``invalid_request``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from providers.core.errors import invalid_request

SCHEMA_VERSION = "1"
"""The payload is one ``content.v1.ContextSection`` we produced, serialized."""


class TextStyle(enum.Enum):
    """render.v1.TextStyle; a :class:`Text` without one leaves the frontend's default."""

    NORMAL = "normal"
    BOLD = "bold"
    ITALIC = "italic"
    CODE = "code"
    DIM = "dim"
    ERROR = "error"
    WARNING = "warning"
    SUCCESS = "success"


@dataclass(frozen=True)
class Text:
    content: str
    style: TextStyle | None = None


@dataclass(frozen=True)
class CodeBlock:
    content: str
    language: str | None = None


@dataclass(frozen=True)
class ListNode:
    items: tuple[Node, ...]
    ordered: bool = False


@dataclass(frozen=True)
class Group:
    """A transparent container: its children, one after another."""

    children: tuple[Node, ...]


@dataclass(frozen=True)
class Collapsible:
    summary: str
    children: tuple[Node, ...]
    collapsed_by_default: bool = True


Node = Text | CodeBlock | ListNode | Group | Collapsible


@dataclass(frozen=True)
class SectionPayload:
    """A Render payload, decoded: the section's producer name, label and text."""

    provider: str
    label: str
    text: str


def check_schema_version(version: str) -> None:
    if version != SCHEMA_VERSION:
        raise invalid_request(
            f"Render: unknown schema_version {version!r}; this provider renders "
            f"schema_version {SCHEMA_VERSION!r} (one of its own sections, serialized)"
        )


def render_section(render: Callable[[str, str], Node], payload: SectionPayload, ours: str) -> Node:
    """``render(label, text)`` for one of our sections; anything else is ``invalid_request``."""
    if payload.provider != ours:
        raise invalid_request(
            f"Render: the section's provider is {payload.provider!r}, not {ours!r}; "
            "only sections this provider produced can be rendered"
        )
    return render(payload.label, payload.text)


def markdown_section(label: str, text: str) -> Collapsible:
    """A markdown document as a collapsible section, collapsed, headed by its label.

    Its one child is the text as a code block with language ``markdown``, not
    paragraphs of text: the providers keep a document byte for byte (fences,
    code spans and any note they add), and a code block hands exactly that
    to the frontend, which may highlight markdown or show it as the model
    sees it. Splitting it into paragraphs would need a markdown parse (blank
    lines inside fenced code are not paragraph breaks) and still lose the
    headings' and lists' markup.
    """
    return Collapsible(label, (CodeBlock(text, "markdown"),), collapsed_by_default=True)


def outline(node: Node) -> str:
    """The tree as indented text (the preview's view): ``[+]``/``[-]`` for collapsed or
    expanded collapsibles, ``<style>`` before styled text, fenced code, ``-`` or ``1.``
    before list items."""
    return "\n".join(_lines(node)) + "\n"


def _lines(node: Node) -> list[str]:
    match node:
        case Text(content, style):
            tag = f"<{style.value}> " if style is not None else ""
            first, *rest = content.split("\n")
            return [tag + first, *(" " * len(tag) + line for line in rest)]
        case CodeBlock(content, language):
            code = content[:-1] if content.endswith("\n") else content
            return [f"```{language or ''}", *code.split("\n"), "```"]
        case ListNode(items, ordered):
            out: list[str] = []
            for number, item in enumerate(items, start=1):
                marker = f"{number}. " if ordered else "- "
                out.extend(_marked(marker, _lines(item)))
            return out
        case Group(children):
            return [line for child in children for line in _lines(child)]
        case Collapsible(summary, children, collapsed):
            head = f"[{'+' if collapsed else '-'}] {summary}"
            inner = [line for child in children for line in _lines(child)]
            return [head, *("  " + line if line else line for line in inner)]
    raise TypeError(f"not a render node: {node!r}")  # pragma: no cover


def _marked(marker: str, lines: Sequence[str]) -> list[str]:
    if not lines:
        return [marker.rstrip()]
    pad = " " * len(marker)
    return [marker + lines[0], *(pad + line if line else line for line in lines[1:])]
