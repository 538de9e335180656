"""One table of a TOML file edited as text: added, replaced or taken out, nothing else moves.

Why text: Codex CLI's ``config.toml`` is the user's, with their comments, blank lines and
table order; a TOML library that loads and dumps it loses or reshapes them. Our table is
a block of lines we wrote ourselves (``[mcp_servers.NAME]`` and its keys), so it is found
by its header line and ends at its last key: the comment lines and blank lines after it
belong to what follows (a comment above the next table describes that table) and stay.
Appended after one blank line (or, to a file without a final newline, after a newline
only), and taken out with exactly that separator, so setup then ``--remove`` gives back
the file byte for byte. The caller checks the result with ``tomllib`` (the edit must
change our table and nothing else). Pure functions on strings.
"""

from __future__ import annotations

import re


class TomlTextError(ValueError):
    """Our table in a form these line edits do not handle."""


def _header_line(header: str) -> re.Pattern[str]:
    return re.compile(rf"[ \t]*{re.escape(header)}[ \t]*(#.*)?\r?\n?")


def _is_header(line: str) -> bool:
    return line.lstrip(" \t").startswith("[")


def _is_quiet(line: str) -> bool:
    """A blank line or a comment line: no content of the table above it."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def span(lines: list[str], header: str) -> tuple[int, int] | None:
    """Lines ``[start, end)`` of the table ``header`` (``[a.b]``) and its sub-tables
    (``[a.b.c]``), ending at its last key line; None when the file has no such header."""
    pattern = _header_line(header)
    starts = [i for i, line in enumerate(lines) if pattern.fullmatch(line)]
    if not starts:
        return None
    if len(starts) > 1:
        raise TomlTextError(f"{header} twice")
    start = starts[0]
    inner = header[:-1] + "."
    end = start + 1
    last_key = start + 1
    while end < len(lines):
        line = lines[end]
        if _is_header(line) and not line.lstrip(" \t").startswith(inner):
            break
        end += 1
        if not _is_quiet(line):
            last_key = end
    return start, last_key


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def put(text: str, header: str, block: str) -> str:
    """``text`` with the table ``header`` replaced by ``block`` (``"\\n"``-ended lines,
    written in the file's newlines), or ``block`` appended when there is none."""
    block = block.replace("\n", _newline(text))
    lines = text.splitlines(keepends=True)
    found = span(lines, header)
    if found is not None:
        start, end = found
        return "".join(lines[:start]) + block + "".join(lines[end:])
    if not text:
        return block
    # a blank line between (the file's last line ends with a newline), or just a newline
    return text + _newline(text) + block


def drop(text: str, header: str) -> str:
    """``text`` without the table ``header`` and the separator :func:`put` put before it."""
    lines = text.splitlines(keepends=True)
    found = span(lines, header)
    if found is None:
        return text
    start, end = found
    head, tail = "".join(lines[:start]), "".join(lines[end:])
    if start > 0 and not lines[start - 1].strip():
        head = "".join(lines[: start - 1])  # the blank line put before it
    elif start > 0 and not tail:
        head = head.removesuffix("\n").removesuffix("\r")  # the newline put before it
    return head + tail
