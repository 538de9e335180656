"""VS Code's glob (``src/vs/base/common/glob.ts``, ``parseRegExp``) as a regex over bytes.

Copilot matches an instructions file's ``applyTo`` with VS Code's own ``match``, which
does not read globs the way minimatch or gitignore do, and the differences decide
whether a rule applies:

- a pattern is split on ``/`` outside ``{}`` and ``[]``, and a trailing ``/`` leaves
  no empty segment behind, so ``src/**/`` is ``src/**`` (every file below ``src``);
- ``**`` is any run of whole segments, lazily; when it is the last segment it may
  also be a separator and one more name, and a second ``**`` straight after one is
  dropped (``src/**/**`` then needs a path ending in a separator: never a file);
- ``*`` is any run of non-separators, possibly empty, ``?`` one non-separator;
- a class ``[...]`` is a regex class: a leading ``!`` or ``^`` negates it, ``/`` inside
  it is dropped, and a negated class matches a separator (``src[!.]a.ts`` matches
  ``src/a.ts``); an unclosed ``[`` swallows the rest of its segment; ``[]`` matches
  nothing and ``[!]`` any one character;
- ``{a,b}`` is an alternation of whole sub-patterns (no expansion), an unclosed ``{``
  swallows the rest of its segment and a stray ``}`` is nothing;
- no escapes: ``\\`` is a literal character, and in a path a separator.

Its shortcuts for common shapes (``**/*.ts`` as "ends with", ``**/name`` as a base
name test) answer what the regex would. A regex JavaScript cannot compile matches
nothing, as VS Code's ``toRegExp`` does. Case is ignored when asked (Copilot asks),
ASCII only here: the regexes work on the bytes of a path.
"""

from __future__ import annotations

import re
import warnings

from providers.repository.wildmatch import path_bytes
from providers.rules.flavours import GlobTranslationError

GLOBSTAR = "**"
_SEP = "[/\\\\]"
_NOT_SEP = "[^/\\\\]"
_NEVER = "(?!)"
_ANY_CHAR = "[\\s\\S]"
_LINE = "[^\\n\\r]*"
"""JavaScript's ``.*`` (no ``s`` flag): the regexes are compiled with ``re.DOTALL``
elsewhere (one prefilter joins every flavour's), so a bare ``.`` would say more."""


def split_aware(pattern: str, separator: str) -> list[str]:
    """``pattern`` split on ``separator`` outside ``{}`` and ``[]``; an empty tail is
    dropped (``a/`` is one segment), empty pieces before it are kept."""
    pieces: list[str] = []
    current = ""
    in_braces = in_brackets = False
    for ch in pattern:
        if ch == separator and not in_braces and not in_brackets:
            pieces.append(current)
            current = ""
            continue
        if ch == "{":
            in_braces = True
        elif ch == "}":
            in_braces = False
        elif ch == "[":
            in_brackets = True
        elif ch == "]":
            in_brackets = False
        current += ch
    if current:
        pieces.append(current)
    return pieces


def _globstar(last: bool) -> str:
    more = f"|{_SEP}{_NOT_SEP}+" if last else ""
    return f"(?:{_SEP}|{_NOT_SEP}+{_SEP}{more})*?"


def _class(body: str) -> str:
    """A JavaScript class ``[body]`` as Python reads it: ``[]`` matches nothing, ``[^]``
    any character."""
    if not body:
        return _NEVER
    if body == "^":
        return _ANY_CHAR
    return f"[{body}]"


MAX_LOOSE_STARS = 2
"""``*`` in one segment that also holds braces or a class that can match a separator:
such a segment is matched by plain backtracking (JavaScript's own way), whose cost
grows as the path length to this power, so more is refused as a typo-like problem."""

_STAR = None
"""A ``*`` among a segment's pieces; each other piece is (regex, fits one name: no
separator can be part of its match, and its width is fixed)."""

Piece = tuple[str, bool] | None


def _segment(segment: str) -> str:
    """One segment's regex. Made of fixed-width pieces that never match a separator, it
    is the classic glob on one name, linear in the name's length: the pieces between
    two ``*`` match at their earliest place, inside atomic groups. Otherwise (braces, a
    negated class) it is VS Code's lazy regex as is, with few ``*``."""
    items: list[Piece] = []
    in_braces = in_brackets = False
    brace = bracket = ""
    for ch in segment:
        if in_braces and ch != "}":
            brace += ch
            continue
        if in_brackets and (ch != "]" or not bracket):  # "]" first in a class is literal
            if ch == "-":
                bracket += "-"
            elif ch in "^!" and not bracket:
                bracket += "^"
            elif ch != "/":
                bracket += re.escape(ch)
            continue
        if ch == "{":
            in_braces = True
        elif ch == "[":
            in_brackets = True
        elif ch == "}":
            choices = split_aware(brace, ",")
            items.append(("(?:" + "|".join(_regex(choice) for choice in choices) + ")", False))
            in_braces, brace = False, ""
        elif ch == "]":
            fixed = not bracket.startswith("^") and "\\\\" not in bracket
            items.append((_class(bracket), fixed))
            in_brackets, bracket = False, ""
        elif ch == "?":
            items.append((_NOT_SEP, True))
        elif ch == "*":
            items.append(_STAR)
        else:
            items.append((re.escape(ch), ch != "\\"))
    return _assemble(items)


def _assemble(items: list[Piece]) -> str:
    stars = sum(1 for item in items if item is _STAR)
    if all(item is _STAR or item[1] for item in items):
        chunks: list[str] = [""]
        for item in items:
            if item is _STAR:
                chunks.append("")
            else:
                chunks[-1] += item[0]
        if len(chunks) == 1:
            return chunks[0]
        middle = "".join(f"(?>{_NOT_SEP}*?{chunk})" if chunk else "" for chunk in chunks[1:-1])
        return chunks[0] + middle + f"{_NOT_SEP}*" + chunks[-1]
    if stars > MAX_LOOSE_STARS:
        raise GlobTranslationError(
            f"more than {MAX_LOOSE_STARS} '*' in one segment beside braces or a negated class"
        )
    return "".join(_NOT_SEP + "*?" if item is _STAR else item[0] for item in items)


def _regex(pattern: str) -> str:
    """VS Code's ``parseRegExp``: the unanchored regex source of ``pattern``."""
    if not pattern:
        return ""
    segments = split_aware(pattern, "/")
    if all(segment == GLOBSTAR for segment in segments):
        return _LINE
    out: list[str] = []
    after_globstar = False
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == GLOBSTAR:
            if not after_globstar:
                out.append(_globstar(last))
            after_globstar = True
            continue
        out.append(_segment(segment))
        following = segments[index + 1] if not last else None
        if following is not None and (following != GLOBSTAR or index + 2 < len(segments)):
            out.append(_SEP)
        after_globstar = False
    return "".join(out)


def vscode_regex(pattern: str, *, ignore_case: bool) -> bytes:
    """The anchored regex source (bytes) ``glob.match(pattern, path, {ignoreCase})``
    compiles; :data:`NEVER_SOURCE` when JavaScript would refuse the regex."""
    source = _regex(pattern.strip())
    with warnings.catch_warnings():  # "--" and the like: read as JavaScript reads them
        warnings.simplefilter("ignore", FutureWarning)
        try:
            re.compile(source)
        except re.error:
            return NEVER_SOURCE
    body = f"(?i:{source})" if ignore_case else source
    return path_bytes(body) + b"\\Z"


NEVER_SOURCE = b"(?!)"


def compile_vscode(source: bytes) -> re.Pattern[bytes]:
    """``source`` compiled as every rule regex is (``re.DOTALL``), quietly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            return re.compile(source, re.DOTALL)
        except re.error:  # a multi-byte range reversed in bytes: never matches, as refused
            return re.compile(NEVER_SOURCE, re.DOTALL)
