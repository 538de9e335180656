"""JSON settings edited as text: our entries go in and come out, nothing else moves.

Why text: the clients' settings files are the user's own, hand-written, commented (Gemini
CLI reads its settings as JSON with comments), indented their way (tabs or spaces), in
their key order. Loading them into a dict and dumping it back loses all of that, so setup
edits the text instead: :func:`parse` finds where each value, key and member sits, and
:func:`append`, :func:`delete` and :func:`replace` change exactly one member or element,
written in the file's own indentation, newlines and key separator. An entry appended and
then deleted leaves the text byte for byte as it was (the round trip setup, then
``setup --remove``). Pure functions on strings: no I/O (``settings_file`` reads and writes).

Which comments: exactly what the client itself accepts. Gemini CLI 0.61 reads its
settings with ``JSON.parse(stripJsonComments(content))`` (``strip-json-comments`` 3.x:
``//`` to the end of the line and ``/* */``, never inside a string, each comment blanked
out character by character, an unclosed one running to the end); :func:`blank_comments`
is a port of that function, so the blanked text has the original's positions and one
strict parser (``JSON.parse``'s grammar: no trailing commas, no NaN) serves both.
Claude Code's and Codex CLI's files are read as plain JSON (``comments=False``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Key = str | int
"""A step of a path: a member's key in an object, an element's index in an array."""

MAX_DEPTH = 256
"""Nesting refused beyond this (Python's recursion; no settings file comes close)."""
DEFAULT_INDENT = "  "
"""What a file with nothing indented gets (what both clients write themselves)."""

_WS = " \t\n\r"
"""``JSON.parse``'s whitespace, and Python's ``json``'s."""
_WS_RUN = re.compile("[ \t\n\r]*")
_SIGNIFICANT = re.compile('["/]')
"""Where ``strip-json-comments`` may change state: a quote, or a slash."""
_JS_NOT_SPACE = re.compile(
    "[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)
"""JavaScript's ``\\S``: what ``strip-json-comments`` replaces with a space (Python's
``\\S`` differs: it treats ``\\x1c``-``\\x1f`` and ``\\x85`` as space, ``\\ufeff`` not)."""
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


class JsonTextError(ValueError):
    """Text the client would not read as JSON (or too deeply nested to edit)."""

    def __init__(self, message: str, text: str, position: int) -> None:
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        super().__init__(f"{message} at line {line} column {column}")


@dataclass(frozen=True)
class Node:
    """A value and where it sits: ``text[start:end]`` is its JSON text."""

    kind: Literal["object", "array", "scalar"]
    start: int
    end: int
    scalar: Any = None
    members: tuple[Member, ...] = ()
    """An object's members, in the file's order."""
    items: tuple[Node, ...] = ()
    """An array's elements."""

    def children(self) -> tuple[Member, ...] | tuple[Node, ...]:
        return self.members if self.kind == "object" else self.items

    def value(self) -> Any:
        """The plain Python value (a repeated key: the last one wins, as in JSON.parse)."""
        if self.kind == "object":
            return {m.key: m.node.value() for m in self.members}
        if self.kind == "array":
            return [item.value() for item in self.items]
        return self.scalar

    def get(self, key: Key) -> Node | None:
        """The member (the last one of that key) or element, or None."""
        if self.kind == "object" and isinstance(key, str):
            found = [m.node for m in self.members if m.key == key]
            return found[-1] if found else None
        if self.kind == "array" and isinstance(key, int) and 0 <= key < len(self.items):
            return self.items[key]
        return None


@dataclass(frozen=True)
class Member:
    """``"key": value`` in an object: ``start`` is the key's opening quote."""

    key: str
    start: int
    key_end: int
    node: Node = field(repr=False)

    @property
    def end(self) -> int:
        return self.node.end


# -- reading ---------------------------------------------------------------------------


def _escaped(text: str, quote: int) -> bool:
    count = 0
    index = quote - 1
    while index >= 0 and text[index] == "\\":
        count += 1
        index -= 1
    return count % 2 == 1


def _blank(part: str) -> str:
    return _JS_NOT_SPACE.sub(" ", part)


def blank_comments(text: str) -> str:
    """``text`` with its comments blanked out, as Gemini CLI's ``strip-json-comments``
    (3.x, default ``whitespace: true``) does it: same length, same positions.

    Its rules, in its order: a ``"`` not preceded by an odd run of backslashes opens or
    closes a string (outside comments); ``//`` runs to the next ``\n`` (kept); ``/*`` to
    the next ``*/``; a comment left open runs to the end. Jumps from one character that
    matters to the next (``~/.claude.json`` can be megabytes; this is linear).
    """
    out: list[str] = []
    offset = position = 0
    while (found := _SIGNIFICANT.search(text, position)) is not None:
        position = found.start()
        if text[position] == '"':
            if _escaped(text, position):
                position += 1
                continue
            close = position + 1
            while (close := text.find('"', close)) >= 0 and _escaped(text, close):
                close += 1
            if close < 0:
                break  # a string to the end: no comment after it
            position = close + 1
            continue
        pair = text[position : position + 2]
        if pair not in ("//", "/*"):
            position += 1
            continue
        out.append(text[offset:position])
        if pair == "//":
            end = text.find("\n", position + 2)
            end = len(text) if end < 0 else end
        else:
            end = text.find("*/", position + 2)
            end = len(text) if end < 0 else end + 2
        out.append(_blank(text[position:end]))
        offset = position = end
    return "".join(out) + text[offset:]


class _Parser:
    """``JSON.parse``'s grammar, keeping positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str) -> JsonTextError:
        return JsonTextError(message, self.text, self.pos)

    def skip(self) -> None:
        found = _WS_RUN.match(self.text, self.pos)
        assert found is not None  # ``*`` matches the empty run too
        self.pos = found.end()

    def string(self) -> tuple[str, int, int]:
        found = _STRING.match(self.text, self.pos)
        if not found:
            raise self.fail("a string that does not close or holds a raw control character")
        self.pos = found.end()
        value: str = json.loads(found.group())
        return value, found.start(), found.end()

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} deep")
        self.skip()
        text, start = self.text, self.pos
        char = text[start : start + 1]
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        if char == '"':
            value, _, end = self.string()
            return Node("scalar", start, end, value)
        for word, literal in _LITERALS.items():
            if text.startswith(word, start):
                self.pos = start + len(word)
                return Node("scalar", start, self.pos, literal)
        number = _NUMBER.match(text, start)
        if number:
            self.pos = number.end()
            return Node("scalar", start, self.pos, json.loads(number.group()))
        raise self.fail("expected a value" if char else "unexpected end of the text")

    def object(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        members: list[Member] = []
        self.skip()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return Node("object", start, self.pos)
        while True:
            self.skip()
            if not self.text.startswith('"', self.pos):
                raise self.fail("expected a member's key (a string)")
            key, key_start, key_end = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':' after the key")
            self.pos += 1
            members.append(Member(key, key_start, key_end, self.value(depth + 1)))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("}", self.pos):
                self.pos += 1
                return Node("object", start, self.pos, members=tuple(members))
            raise self.fail("expected ',' or '}'")

    def array(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        items: list[Node] = []
        self.skip()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return Node("array", start, self.pos)
        while True:
            items.append(self.value(depth + 1))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return Node("array", start, self.pos, items=tuple(items))
            raise self.fail("expected ',' or ']'")


def parse(text: str, *, comments: bool) -> Node:
    """The value of ``text`` with positions; ``comments``: read as Gemini CLI reads it.

    Raises :class:`JsonTextError` where the client's own reading fails.
    """
    parser = _Parser(blank_comments(text) if comments else text)
    node = parser.value(0)
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("unexpected text after the value")
    return node


def find(root: Node, path: Sequence[Key]) -> Node | None:
    """The value at ``path``, or None when a step is missing or of another kind."""
    node: Node | None = root
    for key in path:
        node = node.get(key) if node is not None else None
    return node


# -- the file's own style ----------------------------------------------------------------


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _indent_at(text: str, pos: int) -> str:
    """The leading spaces and tabs of the line holding ``pos``."""
    start = _line_start(text, pos)
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _starts_line(text: str, pos: int) -> bool:
    return not text[_line_start(text, pos) : pos].strip(" \t")


def _walk(node: Node, depth: int = 0) -> list[tuple[int, int, Member | Node]]:
    """Every member and element below ``node``, with its depth, breadth first."""
    found: list[tuple[int, int, Member | Node]] = []
    level: list[tuple[int, Node]] = [(depth, node)]
    while level:
        following: list[tuple[int, Node]] = []
        for at, current in level:
            for child in current.children():
                found.append((child.start, at + 1, child))
                following.append((at + 1, child.node if isinstance(child, Member) else child))
        level = following
    return found


@dataclass(frozen=True)
class Style:
    """How the file writes JSON: what we add is written the same way."""

    indent: str
    """One level of indentation (a tab, or N spaces)."""
    colon: str
    """Between a key and its value (``": "``, ``":"``, ``" : "``)."""
    newline: str

    @classmethod
    def of(cls, text: str, root: Node) -> Style:
        indent, colon = "", ""
        for start, depth, child in _walk(root):
            if not indent and _starts_line(text, start):
                own = text[_line_start(text, start) : start]
                if own and own == own[0] * len(own) and len(own) % depth == 0:
                    indent = own[0] * (len(own) // depth)
            if not colon and isinstance(child, Member):
                between = text[child.key_end : child.node.start]
                if between.strip(" \t") == ":":
                    colon = between
            if indent and colon:
                break
        newline = "\r\n" if "\r\n" in text else "\n"
        return cls(indent or DEFAULT_INDENT, colon or ": ", newline)

    def block(self, value: Any, base: str) -> str:
        """``value`` over several lines, its inner lines indented from ``base``."""
        lines = json.dumps(
            value, indent=self.indent, separators=(",", self.colon), ensure_ascii=False
        ).split("\n")
        return lines[0] + "".join(self.newline + base + line for line in lines[1:])

    def inline(self, value: Any) -> str:
        """``value`` on one line, spaced as the file spaces its own one-line values."""
        tight = self.colon == ":"
        separators = (",", ":") if tight else (", ", self.colon)
        return json.dumps(value, separators=separators, ensure_ascii=False)


# -- editing -------------------------------------------------------------------------------


def _container(root: Node, path: Sequence[Key], what: str) -> Node:
    node = find(root, path)
    if node is None or node.kind == "scalar":
        raise KeyError(f"no {what} at {list(path)}")
    return node


def _next_solid(blanked: str, pos: int) -> int:
    """The first position at or after ``pos`` that is neither whitespace nor comment."""
    while pos < len(blanked) and blanked[pos] in _WS:
        pos += 1
    return pos


def _member_text(key: str | None, value: Any, style: Style, base: str, *, inline: bool) -> str:
    body = style.inline(value) if inline else style.block(value, base)
    if key is None:
        return body
    return json.dumps(key, ensure_ascii=False) + style.colon + body


def append(
    text: str, path: Sequence[Key], value: Any, *, key: str | None = None, comments: bool
) -> str:
    """``text`` with ``value`` added last to the container at ``path`` (as member ``key``
    of an object, else an element of an array), laid out as its neighbours are."""
    root = parse(text, comments=comments)
    container = _container(root, path, "object" if key is not None else "array")
    if (key is None) != (container.kind == "array"):
        raise KeyError(f"{list(path)} is not an {'array' if key is None else 'object'}")
    style = Style.of(text, root)
    children = container.children()
    close = container.end - 1
    if not children:
        inner = text[container.start + 1 : close]
        base = _indent_at(text, container.start)
        if not inner.strip() and root.children() and "\n" not in text[root.start : root.end]:
            # a file on one line stays on one line (an empty one grows as the clients write)
            entry = _member_text(key, value, style, "", inline=True)
            return text[: container.start + 1] + entry + text[close:]
        if not inner.strip():
            own = base + style.indent
            entry = _member_text(key, value, style, own, inline=False)
            opened = text[: container.start + 1] + style.newline + own + entry
            return opened + style.newline + base + text[close:]
        # only comments inside: after the last of them, one level in
        at = close
        while text[at - 1] in _WS:
            at -= 1
        own = base + style.indent
        entry = _member_text(key, value, style, own, inline=False)
        return text[:at] + style.newline + own + entry + text[at:]
    last = children[-1]
    if "\n" not in text[container.start : last.end]:
        entry = _member_text(key, value, style, "", inline=True)
        spacer = "," if style.colon == ":" else ", "
        return text[: last.end] + spacer + entry + text[last.end :]
    own = _indent_at(text, last.start)
    at = min(_line_end(text, last.end), close)
    while at > last.end and text[at - 1] in _WS:
        at -= 1
    trailing = text[last.end : at]
    if trailing.rfind("/*") > trailing.rfind("*/"):
        at = last.end  # the line ends inside a comment: stay before it
    entry = _member_text(key, value, style, own, inline=False)
    return text[: last.end] + "," + text[last.end : at] + style.newline + own + entry + text[at:]


def delete(text: str, path: Sequence[Key], *, comments: bool) -> str:
    """``text`` without the member or element at ``path`` (with its comma and, when it had
    lines of its own, those lines); a container left with only blanks closes up: ``{}``."""
    if not path:
        raise KeyError("the root cannot be deleted")
    root = parse(text, comments=comments)
    container = _container(root, path[:-1], "container")
    children = container.children()
    if container.kind == "object":
        members = container.members
        matching = [i for i, m in enumerate(members) if m.key == path[-1]]
        if not matching:
            raise KeyError(f"no member {path[-1]!r} at {list(path[:-1])}")
        index = matching[-1]
    else:
        index = int(path[-1])
        if not 0 <= index < len(children):
            raise KeyError(f"no element {index} at {list(path[:-1])}")
    blanked = blank_comments(text) if comments else text
    child = children[index]
    previous = children[index - 1] if index > 0 else None
    following = children[index + 1] if index + 1 < len(children) else None
    start, end = child.start, child.end
    if following is not None:
        end = _next_solid(blanked, end) + 1  # past its comma
    spans: list[tuple[int, int]] = []
    previous_comma = None
    if following is None and previous is not None:
        previous_comma = _next_solid(blanked, previous.end)
    after = text[end : _line_end(text, end)]
    if _starts_line(text, start) and not after.strip():
        line_end = _line_end(text, end)
        spans.append((_line_start(text, start), min(line_end + 1, len(text))))
        if previous_comma is not None:
            spans.append((previous_comma, previous_comma + 1))
    elif previous_comma is not None:
        spans.append((previous_comma, previous_comma + 1))
        back = start
        while back > previous_comma + 1 and text[back - 1] in _WS:
            back -= 1
        spans.append((back, end))
    else:
        while following is not None and end < len(text) and text[end] in " \t":
            end += 1
        spans.append((start, end))
    result = text
    removed = 0
    for span_start, span_end in sorted(spans, reverse=True):
        result = result[:span_start] + result[span_end:]
        removed += span_end - span_start
    if previous is None and following is None:
        close = container.end - 1 - removed
        if not result[container.start + 1 : close].strip():
            result = result[: container.start + 1] + result[close:]
    return result


def replace(text: str, path: Sequence[Key], value: Any, *, comments: bool) -> str:
    """``text`` with the value at ``path`` replaced where it stands (its key stays)."""
    root = parse(text, comments=comments)
    node = find(root, path)
    if node is None or not path:
        raise KeyError(f"nothing at {list(path)}")
    container = _container(root, path[:-1], "container")
    holder = next(
        c for c in container.children() if (c.node if isinstance(c, Member) else c) is node
    )
    style = Style.of(text, root)
    if _starts_line(text, holder.start):
        body = style.block(value, _indent_at(text, holder.start))
    else:
        body = style.inline(value)
    return text[: node.start] + body + text[node.end :]
