"""Claude Code's ``.claude/rules`` ``paths:``: how it reads them and how it matches a path.

Claude Code publishes no matcher. Observed with the real client (2.1.328, after a read of
``src/a.ts``, ``tests/clients/test_claude_rules.py``) and checked against its own
matcher on every case of ``tests/rules/data/glob_cases.txt``: gitignore lines with the
case ignored, asked whether they "ignore" the path relative to the folder that holds
``.claude/``. So ``*.ts`` applies at any depth, ``src`` to everything below a folder
``src``, ``src/*.TS`` to ``src/a.ts``. What differs from git
(:mod:`providers.repository.wildmatch`):

- the case is ignored (ASCII here: paths are matched as bytes);
- a class ``[...]`` has no negation (``[!a]`` is ``!`` or ``a``, ``^`` likewise) and no
  POSIX classes; ``[]``, and a ``[`` never closed, match nothing;
- a pattern ending in ``/**/`` also matches the folder before it (``src/**/`` is
  everything below ``src``); a lone trailing ``*`` after a ``/`` is one name or more;
- only ``!`` patterns match nothing (there is nothing to re-include);
- an escaped whitespace character is a space; trailing whitespace goes, any kind.

Before matching, ``paths:`` is read its own way (:func:`claude_patterns`): a string or a
list of strings (anything else, or nothing, makes the rule unconditional), each split at
commas outside braces, ``{a,b}`` groups expanded (a group is the first ``{`` up to the
next ``}``, its alternatives trimmed), a trailing ``/**`` dropped (``src/**`` is ``src``:
the same files, gitignore-wise), empty ones dropped; nothing left, or ``**`` alone,
means the rule always applies.

Where we differ on purpose: a backslash before a letter or digit is the letter itself
(git's reading; Claude Code hands it to its regex, where ``\\d`` is a digit), and a
class with a ``*``, ``?`` or ``/`` in it, which Claude Code turns into a different
pattern, is refused as a typo (:class:`~providers.rules.flavours.GlobTranslationError`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from providers.repository.wildmatch import path_bytes
from providers.rules.flavours import GlobTranslationError

EVERYTHING = "**"


def split_paths(value: object) -> tuple[str, ...] | None:
    """``paths:`` as Claude Code takes it in, before braces: its patterns, or ``None`` when
    the value makes no condition (absent, empty, not a string or a list of strings)."""
    if isinstance(value, str):
        items: list[object] = [value]
    elif isinstance(value, list):
        items = _flattened(value)
    else:
        return None
    patterns: list[str] = []
    for item in items:
        if isinstance(item, str):
            patterns.extend(_split_commas(item))
    return tuple(patterns) or None


def _flattened(values: list[object]) -> list[object]:
    out: list[object] = []
    for value in values:
        if isinstance(value, list):
            out.extend(_flattened(value))
        else:
            out.append(value)
    return out


def _split_commas(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return [part for part in parts if part]


_GROUP = re.compile(r"^([^{]*)\{([^}]+)\}(.*)$", re.DOTALL)
MAX_EXPANSIONS = 1_000


def expand(pattern: str) -> list[str]:
    """``pattern``'s brace groups expanded as Claude Code expands them (at most
    :data:`MAX_EXPANSIONS`; past that the pattern is kept as written, as it does)."""
    done: list[str] = []
    pending = [pattern]
    while pending:
        one = pending.pop()
        group = _GROUP.match(one)
        if group is None:
            done.append(one)
            continue
        head, choices, tail = group.groups()
        pending.extend(head + choice.strip() + tail for choice in reversed(choices.split(",")))
        if len(done) + len(pending) > MAX_EXPANSIONS:
            return [pattern]
    return done


def claude_patterns(pattern: str) -> list[str]:
    """The lines Claude Code matches for one written pattern: braces expanded, a trailing
    ``/**`` dropped, empty ones gone."""
    lines = (p[:-3] if p.endswith("/**") else p for p in expand(pattern))
    return [line for line in lines if line]


def always(patterns: Iterable[str]) -> bool:
    """Whether Claude Code treats these patterns as no condition at all."""
    lines = [line for pattern in patterns for line in claude_patterns(pattern)]
    return not lines or all(line == EVERYTHING for line in lines)


@dataclass(frozen=True)
class Line:
    """One gitignore line as Claude Code compiles it."""

    written: str
    expanded: str
    negative: bool
    folder: re.Pattern[bytes]
    """Matched against the path and each folder above it (``src/``, with its slash)."""
    below: re.Pattern[bytes]
    """Matched against the path alone: whether it or a folder above it matches (the
    prefilter's and the pattern check's regex)."""


_SPECIAL_WORD = re.compile(r"\w+", re.ASCII)


def compile_line(written: str, expanded: str) -> Line | None:
    """``expanded`` (one line) compiled, or ``None`` for a line Claude Code skips (a
    comment, a blank, a trailing backslash)."""
    if expanded.startswith("#") or not expanded.strip():
        return None
    if expanded.endswith("\\") and not expanded.endswith("\\\\"):
        return None
    negative = expanded.startswith("!")
    body = expanded[1:] if negative else expanded
    if body[:2] in ("\\!", "\\#"):
        body = body[1:]
    body = body.removeprefix("\ufeff")
    trimmed = body.rstrip()
    if not trimmed:  # "!" alone: un-ignores everything
        anything = re.compile(b".*", re.DOTALL)
        return Line(written, expanded, negative, anything, anything)
    lead = re.match(r"/?(\*\*/)?", trimmed)
    assert lead is not None
    if lead.group(1):
        start = "(?:.*/)?"
    elif lead.group(0) or re.search(r"/.", body, re.DOTALL):
        start = ""
    else:
        start = "(?:.*/)?"
    rest = trimmed[len(lead.group(0)) :]
    if trimmed != body and trimmed.endswith("\\"):
        rest += " "
    regex = _translate(rest)
    folder_only = rest.endswith("/")
    folder = f"(?i:{start}{regex})" + ("" if folder_only else "/?") + r"\Z"
    below = f"(?i:{start}{regex}" + (".*" if folder_only else "(?:/.*)?") + r")\Z"
    return Line(
        written,
        expanded,
        negative,
        re.compile(path_bytes(folder), re.DOTALL),
        re.compile(path_bytes(below), re.DOTALL),
    )


class _Segment:
    """One name's pieces, put together linearly: the pieces between two ``*`` match at
    their earliest place, inside atomic groups (every piece has a fixed width and no
    ``/``, so the earliest place is always right), which keeps ``*a*a*a*b`` linear."""

    def __init__(self) -> None:
        self.chunks: list[list[str]] = [[]]

    def add(self, piece: str) -> None:
        self.chunks[-1].append(piece)

    def star(self) -> None:
        self.chunks.append([])

    def regex(self) -> str:
        parts = ["".join(chunk) for chunk in self.chunks]
        if len(parts) == 1:
            return parts[0]
        middle = "".join(f"(?>[^/]*?{part})" if part else "" for part in parts[1:-1])
        return parts[0] + middle + "[^/]*" + parts[-1]


def _translate(rest: str) -> str:
    """The regex of a line's body (after its lead), token by token: runs of backslashes,
    then ``/**`` (before a ``/`` or the end), a word, or one character."""
    out: list[str] = []
    segment = _Segment()
    klass: list[str] | None = None  # members of an open "[...]"
    previous = ""
    i = 0
    n = len(rest)
    while i < n:
        if rest[i] == "*" and klass is None:
            j = i
            while j < n and rest[j] == "*":
                j += 1
            if j < n:  # a run followed by more: any run of one name's characters
                segment.star()
                previous, i = "", j
                continue
            if j - i > 1:  # "a**" at the end: the run but its last star, then that star
                segment.star()
                i = j - 1
                previous = ""
        slashes = 0
        while i + slashes < n and rest[i + slashes] == "\\":
            slashes += 1
        i += slashes
        escaped = slashes % 2 == 1
        if slashes > 1:
            (klass.append if klass is not None else segment.add)("\\\\" * (slashes // 2))
        token = _token(rest, i)
        at_end = i + len(token) == n
        i += len(token)
        if klass is not None:
            if token == "]" and not escaped:
                segment.add(f"[{''.join(klass)}]" if klass else "(?!)")
                klass = None
            elif token == "]" or not token:
                segment.add("(?!)")  # an escaped "]" closes it too, and it matches nothing
                klass = None
            elif token in ("*", "?", "/", "/**"):
                raise GlobTranslationError(f"a {token!r} inside a class [...] in {rest!r}")
            else:
                klass.append("-" if token == "-" else re.escape(token))
        elif token == "[" and not escaped:
            klass = []
        elif token in ("/", "/**") and not escaped:
            out.append(segment.regex())
            segment = _Segment()
            if token == "/":
                out.append("/")
            else:
                out.append("/.+" if at_end else "(?:/[^/]+)*")
        elif token == "?" and not escaped:
            segment.add("[^/]")
        elif token == "*" and at_end:  # even escaped: Claude Code keeps it a wildcard
            if previous == "/" and slashes < 2:
                segment.add("[^/]")
            segment.star()
        elif escaped and token.isspace():
            segment.add(" ")
        else:  # an escaped character is itself (a letter or digit too: on purpose)
            segment.add(re.escape(token))
        previous = token
    if klass is not None:  # never closed
        segment.add("(?!)")
    out.append(segment.regex())
    return "".join(out)


def _token(rest: str, at: int) -> str:
    if rest.startswith("/**", at) and (at + 3 == len(rest) or rest[at + 3] == "/"):
        return "/**"
    word = _SPECIAL_WORD.match(rest, at)
    if word is not None:
        return word.group(0)
    return rest[at : at + 1]


def _klass(members: Sequence[str], trailing: str) -> str:
    """A closed class: its members as written, no negation; empty matches nothing."""
    body = "".join(members) + trailing
    if not body:
        return "(?!)"
    return f"[{body}]"
