"""Finding Claude Code-style ``@path`` imports in markdown text (and, asked, Kiro's
``#[[file:path]]`` references, which name a path from the workspace root).

An import is ``@`` at the start of a block's text or after whitespace or
``(``, followed by a path-like run of non-blank characters (trailing
punctuation such as ``).,;:!?`` is not part of the path). Only text the
parser treats as prose counts: code spans, fenced and indented code, HTML
comments, raw-text HTML blocks and front matter never yield imports. An
address like ``a@b.com`` is no import (no blank before the ``@``).

Every ``@word`` is reported; whether the path exists is the caller's concern.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it.token import Token

from providers.markdown.lines import normalise_newlines, source_lines
from providers.markdown.tokens import (
    comment_spans,
    content_map,
    is_markup_html_block,
    parse,
    parser_view,
)

_TRAILING_PUNCTUATION = ").,;:!?\"'`]}>*"
_CONTAINERS = ("list_item", "blockquote")


@dataclass(frozen=True)
class MarkdownImport:
    """One ``@path`` reference.

    ``line`` is the 0-based line of the ``@`` in the (normalised) text;
    ``block_end`` the end-exclusive line of the block it sits in, without
    trailing blank lines: the outermost list item or blockquote holding it,
    else its paragraph, heading or HTML block, so content placed there never
    splits a list or a quote. ``standalone`` means the whole line holds
    nothing but import references and blanks (a list or quote marker makes
    it not standalone, so replacing the line never loses a marker).
    """

    target: str
    line: int
    block_end: int
    standalone: bool
    from_root: bool = False
    """A Kiro ``#[[file:path]]`` reference: ``path`` is from the workspace root."""

    @property
    def written(self) -> str:
        """The reference as written (for notes)."""
        return f"#[[file:{self.target}]]" if self.from_root else f"@{self.target}"


_KIRO_REFERENCE = re.compile(r"#\[\[file:([^\]\n]+)\]\]")


def find_imports(text: str, *, kiro: bool = False) -> list[MarkdownImport]:
    """Every import reference in document order; meant for already stripped text.
    ``kiro``: Kiro's ``#[[file:path]]`` references count too.

    Raises :class:`~providers.markdown.tokens.MarkdownTooComplex` for a text the
    parser must not take on (the caller then expands no import of it).
    """
    if "@" not in text and not (kiro and "#[[file:" in text):
        return []  # the common case, without a parse
    normalised = normalise_newlines(text)
    view = [parser_view(line) for line in source_lines(normalised)]
    found: list[MarkdownImport] = []
    outer: list[Token] = []
    previous: Token | None = None
    for token in parse(normalised):
        kind = token.type.removesuffix("_open").removesuffix("_close")
        if kind in _CONTAINERS and token.nesting == 1:
            outer.append(token)
        elif kind in _CONTAINERS and token.nesting == -1:
            if outer:
                outer.pop()
        elif token.map is not None and token.type in ("inline", "html_block"):
            block = outer[0].map if outer and outer[0].map else token.map
            atx = token.type == "inline" and previous is not None and previous.markup[:1] == "#"
            end = _trimmed_end(view, block)
            found.extend(_imports_in(token, view, end, heading=atx, kiro=kiro))
        previous = token
    return found


def _trimmed_end(view: Sequence[str], block: Sequence[int]) -> int:
    end = min(block[1], len(view))
    while end > block[0] + 1 and not view[end - 1].strip():
        end -= 1
    return end


def _excluded(token: Token) -> list[tuple[int, int]]:
    """Content spans that are not prose: code spans, inline HTML, comments."""
    if token.type == "html_block":
        return comment_spans(token.content, open_to_end=True)
    return sorted(
        child.meta["span"]
        for child in token.children or ()
        if child.type in ("code_inline", "html_inline") and "span" in child.meta
    )


def _imports_in(
    token: Token, view: Sequence[str], block_end: int, *, heading: bool, kiro: bool
) -> list[MarkdownImport]:
    content = token.content
    if token.map is None or ("@" not in content and not (kiro and "#[[file:" in content)):
        return []
    if token.type == "html_block" and not is_markup_html_block(content):
        return []
    excluded = _excluded(token)
    references = _references(content, excluded)
    rooted: set[int] = set()
    if kiro:
        more = _kiro_references(content, excluded)
        rooted = {at for at, _, _ in more}
        references = sorted(references + more)
    if not references:
        return []
    placed = content_map(view, token.map[0], token.map[1], content, heading=heading)
    if placed is None:
        return []
    leftovers: dict[int, str] = {}
    content_lines = source_lines(content) or [""]  # as content_map counts them
    for at, end, _ in reversed(references):
        index = placed.line_of(at)
        start = placed.starts[index]
        text = leftovers.get(index, content_lines[index])
        leftovers[index] = text[: at - start] + text[end - start :]
    found: list[MarkdownImport] = []
    for at, _, target in references:
        index = placed.line_of(at)
        line = placed.first_line + index
        markers = view[line][: placed.base[index]] if line < len(view) else ""
        found.append(
            MarkdownImport(
                target=target,
                line=line,
                block_end=max(block_end, line + 1),
                standalone=not leftovers[index].strip() and not markers.strip(),
                from_root=at in rooted,
            )
        )
    return found


def _kiro_references(
    content: str, excluded: Sequence[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """(offset, end, path) of each ``#[[file:path]]`` in prose."""
    found: list[tuple[int, int, str]] = []
    for match in _KIRO_REFERENCE.finditer(content):
        at, end = match.span()
        if any(start <= at < stop for start, stop in excluded):
            continue
        target = match.group(1).strip()
        if target:
            found.append((at, end, target))
    return found


def _references(content: str, excluded: Sequence[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(offset of '@', end of its run, target) for each reference in prose."""
    starts = [start for start, _ in excluded]
    found: list[tuple[int, int, str]] = []
    pos = 0
    while (at := content.find("@", pos)) != -1:
        pos = at + 1
        nearest = bisect.bisect_right(starts, at) - 1
        if nearest >= 0 and at < excluded[nearest][1]:
            continue
        if at > 0 and not (content[at - 1].isspace() or content[at - 1] == "("):
            continue
        following = bisect.bisect_right(starts, at)
        limit = starts[following] if following < len(starts) else len(content)
        end = at + 1
        while end < limit and not content[end].isspace():
            end += 1
        target = content[at + 1 : end].rstrip(_TRAILING_PUNCTUATION)
        if target[:1] == "@" or not any(ch.isalnum() or ch == "_" for ch in target):
            continue
        if not _looks_like_path(target):
            continue  # a mention (``thanks @alice``), a decorator or a handle, not a file
        found.append((at, end, target))
        pos = end
    return found


def _looks_like_path(target: str) -> bool:
    """Imports name files: a directory part or a file extension (``@AGENTS.md``,
    ``@docs/x``, ``@./x``, ``@~/x``); a bare word is a mention, not an import."""
    return "/" in target or "." in target.lstrip(".")
