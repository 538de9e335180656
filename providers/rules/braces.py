"""Brace alternatives (``*.{ts,tsx}``), which tools accept and gitignore syntax lacks.

Expanded before any flavour matches, the same way for all of them (as bash
does: a group needs a top-level comma, an unbalanced one stays literal), and
bounded so one pattern cannot compile into thousands of regexes. Commas inside
braces are not list separators either (:func:`split_top_level_commas`), which
front matter parsing needs too.
"""

from __future__ import annotations

MAX_EXPANSIONS = 256
"""Brace alternatives one pattern may expand to; beyond that it is kept literal."""


def split_top_level_commas(text: str) -> list[str]:
    """``text`` split at the commas outside braces (and not escaped)."""
    parts: list[str] = []
    depth = 0
    start = 0
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def expand_braces(pattern: str) -> list[str]:
    """``a/*.{ts,tsx}`` -> ``["a/*.ts", "a/*.tsx"]``; nested braces too.

    A brace group without a top-level comma, or an unbalanced one, stays
    literal (as in bash); so does a pattern that would expand past
    :data:`MAX_EXPANSIONS`.
    """
    expanded = _expand(pattern)
    if expanded is None or len(expanded) > MAX_EXPANSIONS:
        return [pattern]
    seen: list[str] = []
    for item in expanded:
        if item not in seen:
            seen.append(item)
    return seen


def _expand(pattern: str) -> list[str] | None:
    group = _first_group(pattern)
    if group is None:
        return [pattern]
    open_at, close_at, alternatives = group
    head, tail = pattern[:open_at], pattern[close_at + 1 :]
    tails = _expand(tail)
    if tails is None:
        return None
    results: list[str] = []
    for alternative in alternatives:
        inner = _expand(alternative)
        if inner is None:
            return None
        for middle in inner:
            for rest in tails:
                results.append(head + middle + rest)
                if len(results) > MAX_EXPANSIONS:
                    return None
    return results


def _first_group(pattern: str) -> tuple[int, int, list[str]] | None:
    """The first balanced ``{...}`` holding a top-level comma: (open, close, alternatives)."""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            close = _matching_close(pattern, i)
            if close is None:
                return None
            inner = pattern[i + 1 : close]
            alternatives = split_top_level_commas(inner)
            if len(alternatives) > 1:
                return i, close, alternatives
            # No comma: literal braces; keep looking after them.
            i = close + 1
            continue
        i += 1
    return None


def _matching_close(pattern: str, open_at: int) -> int | None:
    depth = 0
    i = open_at
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None
