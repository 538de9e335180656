"""Shared machinery for the markdown helpers: one parser, token-to-source maps.

markdown-it gives block tokens line maps but no columns, and inline tokens no
position at all. Removing an inline comment byte-exactly needs both, so:

* the parser wraps two inline rules (code spans, inline HTML) to record where
  each token they push starts and ends in its ``inline`` token's content
  (``token.meta["span"]``);
* :func:`content_map` finds, for each line of a token's content, the column
  where that line sits in the source line it came from (content lines are
  source-line suffixes with the container markers and indentation cut off).

markdown-it-py is linear but slow on some shapes (each of 40,000 headings
or 500,000 ``[`` costs tens of microseconds), so every parse is metered: a
first rule in the block and inline chains charges each step to a
:class:`ParseWork`, and a text that needs more than :data:`MAX_PARSE_WORK`
raises :class:`MarkdownTooComplex` within about a second, the same way for
the same text every time. Callers read such a text as plain text.

Everything here works on text whose newlines were normalised the way
markdown-it does it (:mod:`providers.markdown.lines`); callers keep the
original characters for output.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.ruler import Ruler
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.blockquote import blockquote
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from markdown_it.rules_inline.emphasis import tokenize as emphasis_tokenize
from markdown_it.rules_inline.html_inline import html_inline
from markdown_it.rules_inline.strikethrough import tokenize as strikethrough_tokenize
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from providers.markdown.lines import source_lines

InlineRule = Callable[[StateInline, bool], bool]

MAX_PARSE_WORK = 40_000
"""Work units one text may cost the parser: a line is 1, a block 4, an inline step or
an emphasis delimiter 2, a line of a blockquote 1 per level. The slowest shapes
measured (``[`` floods, autolinks, nested quotes, one-character lines) reach the cap
in under a second of CPU; a 100 KB README costs about 9,000."""

_LINE_WORK = 1
_BLOCK_WORK = 4
_INLINE_WORK = 2
_WORK_KEY = "providers.work"
_BLOCKQUOTE_ALT = ["paragraph", "reference", "blockquote", "list"]
"""The chains markdown-it's own blockquote rule is in (kept when it is wrapped)."""


class MarkdownTooComplex(ValueError):
    """The text needs more parser work than :data:`MAX_PARSE_WORK` allows."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"over {limit:,} units of markdown parser work")
        self.limit = limit


class ParseWork:
    """The work left for one job (a text and the re-parses of what it becomes)."""

    def __init__(self, limit: int = MAX_PARSE_WORK) -> None:
        self.limit = limit
        self.left = limit

    def charge(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            raise MarkdownTooComplex(self.limit)


def _charge_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """First in the block chain: called once per block start; never matches."""
    state.env[_WORK_KEY].charge(_BLOCK_WORK)
    return False


def _charge_inline(state: StateInline, silent: bool) -> bool:
    """First in the inline chain: called once per inline step (and per skipToken)."""
    state.env[_WORK_KEY].charge(_INLINE_WORK)
    return False


_DELIMITER_RUN = re.compile(r"\*+|_+|~+")


def _charging_runs(rule: InlineRule) -> InlineRule:
    """Wrap the emphasis rule: it takes a whole ``*`` run in one step, pushing a token and
    a delimiter per character, so the run is charged before it is scanned."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        run = _DELIMITER_RUN.match(state.src, state.pos)
        if run is not None:
            state.env[_WORK_KEY].charge(_INLINE_WORK * (run.end() - run.start()))
        return rule(state, silent)

    return wrapped


BlockRule = Callable[[StateBlock, int, int, bool], bool]


def _charging_lines(rule: BlockRule) -> BlockRule:
    """Wrap the blockquote rule: each nesting level walks every line of its quote again,
    so a quote is charged its lines (up to the blank line that must end it) up front."""

    def wrapped(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        first = state.bMarks[start] + state.tShift[start]
        if not silent and first < len(state.src) and state.src[first] == ">":
            stop = start
            while stop < end and not state.isEmpty(stop):
                stop += 1
            state.env[_WORK_KEY].charge(_LINE_WORK * (stop - start))
        return rule(state, start, end, silent)

    return wrapped


def _charge_delimiters(state: StateInline) -> None:
    """First in the inline post-processing chain: one step may push a delimiter per
    character of a ``*`` run, which pairing then walks."""
    state.env[_WORK_KEY].charge(_INLINE_WORK * len(state.delimiters))


# HTML block starts whose content is not markup: never edited, never scanned.
_RAW_TEXT_TAGS = ("script", "pre", "style", "textarea")


def parser_view(line: str) -> str:
    """The line as markdown-it sees it: NUL becomes U+FFFD (same length, same columns)."""
    return line.replace("\0", "\ufffd")


def _recording(rule: InlineRule, token_type: str) -> InlineRule:
    """Wrap an inline rule so the token it pushes carries its source span."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        matched = rule(state, silent)
        if matched and not silent and len(state.tokens) > count:
            token = state.tokens[-1]
            if token.type == token_type:
                token.meta = {**token.meta, "span": (start, state.pos)}
        return matched

    return wrapped


@functools.cache
def parser() -> MarkdownIt:
    """CommonMark with HTML on (comments become tokens) and front matter, built once."""
    md = MarkdownIt("commonmark").use(front_matter_plugin)
    md.inline.ruler.at("backticks", _recording(backtick, "code_inline"))
    md.inline.ruler.at("html_inline", _recording(html_inline, "html_inline"))
    md.block.ruler.before(_first_rule(md.block.ruler), "work", _charge_block)
    md.inline.ruler.before(_first_rule(md.inline.ruler), "work", _charge_inline)
    md.inline.ruler2.before(_first_rule(md.inline.ruler2), "work", _charge_delimiters)
    md.inline.ruler.at("emphasis", _charging_runs(emphasis_tokenize))
    md.inline.ruler.at("strikethrough", _charging_runs(strikethrough_tokenize))
    md.block.ruler.at("blockquote", _charging_lines(blockquote), {"alt": _BLOCKQUOTE_ALT})
    return md


def _first_rule(ruler: Ruler[Any]) -> str:
    return str(ruler.get_all_rules()[0])


def parse(normalised: str, work: ParseWork | None = None) -> list[Token]:
    """Block and inline tokens for already normalised text.

    Raises :class:`MarkdownTooComplex` when the parse would cost more than
    ``work`` has left (a fresh :class:`ParseWork` by default).
    """
    work = work or ParseWork()
    work.charge(_LINE_WORK * (normalised.count("\n") + 1))
    return parser().parse(normalised, {_WORK_KEY: work})


def front_matter_end(tokens: Sequence[Token], view: Sequence[str]) -> int:
    """How many leading lines are front matter (0 when there is none).

    Only the plugin's top-level block at line 0 counts, and only when its
    opening line is nothing but dashes: the plugin alone would also take
    ``---title`` for an opener.
    """
    if not tokens or not view:
        return 0
    head = tokens[0]
    if head.type != "front_matter" or head.level != 0 or not head.map or head.map[0] != 0:
        return 0
    if view[0].rstrip(" \t").strip("-"):
        return 0
    return min(head.map[1], len(view))


def is_comment_html(content: str) -> bool:
    """An HTML block or inline token that starts with a comment."""
    return content.lstrip(" \t").startswith("<!--")


def is_markup_html_block(content: str) -> bool:
    """HTML blocks whose inner comments are comments (CommonMark types 2, 6 and 7).

    Raw-text elements (``<pre>``, ``<script>``...), declarations, processing
    instructions and CDATA hold text, not markup: they are left alone.
    """
    head = content.lstrip(" \t").lower()
    if head.startswith("<!--"):
        return True
    if head.startswith(("<!", "<?")):
        return False
    for tag in _RAW_TEXT_TAGS:
        opener = "<" + tag
        if head.startswith(opener):
            follow = head[len(opener) : len(opener) + 1]
            if not follow or follow == ">" or follow.isspace():
                return False
    return True


def comment_spans(content: str, *, open_to_end: bool) -> list[tuple[int, int]]:
    """Every ``<!-- ... -->`` in raw HTML content, as (start, end) offsets.

    ``<!-->`` and ``<!--->`` close themselves, as in HTML. An unclosed ``<!--``
    runs to the end of the content when ``open_to_end`` (what markdown-it's
    comment block does); otherwise it is left as text.
    """
    spans: list[tuple[int, int]] = []
    end_of_content = len(content) - 1 if content.endswith("\n") else len(content)
    pos = 0
    while (start := content.find("<!--", pos)) != -1:
        close = content.find("-->", start + 2)
        if close == -1:
            if open_to_end and start < end_of_content:
                spans.append((start, end_of_content))
            break
        spans.append((start, close + 3))
        pos = close + 3
    return spans


@dataclass(frozen=True)
class ContentMap:
    """Where a token's content lines sit in the source.

    Content line ``i`` is source line ``first_line + i``; its text from content
    column ``skip[i]`` on starts at source column ``base[i]``. (The skipped
    leading blanks may be tab-expansion padding that is not in the source.)
    """

    first_line: int
    starts: tuple[int, ...]
    skip: tuple[int, ...]
    base: tuple[int, ...]

    def locate(self, offset: int) -> tuple[int, int]:
        """Source (line, column) of a content offset outside leading blanks."""
        if not self.starts:
            return self.first_line, 0
        i = max(0, bisect.bisect_right(self.starts, offset) - 1)
        column = offset - self.starts[i]
        return self.first_line + i, max(0, self.base[i] + column - self.skip[i])

    def line_of(self, offset: int) -> int:
        """Index of the content line holding ``offset``."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)


def _line_base(content_line: str, source: str, *, heading: bool) -> tuple[int, int] | None:
    """(skip, base) for one content line, or None when it is not found where expected."""
    core = content_line.lstrip(" \t")
    skip = len(content_line) - len(core)
    if not core:
        return skip, len(source)
    if heading:
        base = source.find(core, source.find("#") + 1)
    elif source.endswith(core):
        base = len(source) - len(core)
    else:
        trimmed = source.rstrip()
        base = len(trimmed) - len(core) if trimmed.endswith(core) else -1
    if base < 0 or source[base : base + len(core)] != core:
        return None
    return skip, base


def content_map(
    view: Sequence[str], first: int, last: int, content: str, *, heading: bool = False
) -> ContentMap | None:
    """Map ``content`` (of a token covering source lines ``first``..``last``) back to them.

    Content may have lost leading all-blank lines to ``str.strip()`` (think of
    a form feed on its own line), so the first matching source line is tried
    in turn. ``None`` when no placement fits: callers then leave the token as it is.
    """
    last = min(last, len(view))
    lines = source_lines(content) or [""]  # empty content is still one (empty) line
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    for shift in range(max(1, last - first - len(lines) + 1)):
        skips: list[int] = []
        bases: list[int] = []
        for i, line in enumerate(lines):
            index = first + shift + i
            found = _line_base(line, view[index], heading=heading) if index < last else None
            if found is None:
                break
            skips.append(found[0])
            bases.append(found[1])
        else:
            return ContentMap(first + shift, tuple(starts), tuple(skips), tuple(bases))
    return None
