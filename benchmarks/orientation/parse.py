"""Each map read back into what it names: the files the agent can read off it, and the
directories shown as entries.

A file is named when it has its own line under fully expanded ancestors; a
collapsed directory (``vendor/ (1,204 files, 37 dirs)``), Gemini's ignored
folder (``node_modules/...``) or a ``... 968 more`` line names no file. The
benchmark checks these parsers on generated trees before every run
(``selfcheck``), since a parser that misses lines would read as a bad map.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_MORE = re.compile(r"\.\.\. [\d,]+ more( files?| \(.*\))")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Named:
    """What a map names: leaf paths (nested repositories as ``name/``) and directories."""

    files: frozenset[str]
    dirs: frozenset[str]

    @property
    def entries(self) -> int:
        return len(self.files) + len(self.dirs)


def _segments(text: str) -> tuple[list[str], str | None]:
    """An entry line's names (``a/b/c.proto`` folded: three) and what follows a final ``/``.

    The tail is None for a file, ``""`` for an expanded directory, the counts
    (`` (3 files)``, `` (repository)``) for a collapsed one. A name is bare
    (no ``/``, no quote: :func:`providers.file_tree.tree_text.display`) or JSON.
    """
    names: list[str] = []
    pos = 0
    while True:
        if text.startswith('"', pos):
            name, pos = _DECODER.raw_decode(text, pos)
        else:
            slash = text.find("/", pos)
            end = len(text) if slash < 0 else slash
            name, pos = text[pos:end], end
        names.append(name)
        if pos == len(text):
            return names, None
        if text[pos] != "/":
            raise ValueError(f"unexpected text after a name: {text!r}")
        pos += 1
        if pos == len(text) or text.startswith(" (", pos):
            return names, text[pos:]


def parse_ours(text: str) -> Named:
    """The file tree section: root line, indented entries, ``(shown: ...)`` last.

    The indentation unit (two spaces, or one) is read off the root's first
    entry, so the parser reads the pinned revision's maps and today's alike.
    """
    lines = text.rstrip("\n").split("\n")
    if not lines[-1].startswith("(shown: "):
        raise ValueError(f"no totals line: {lines[-1]!r}")
    files: set[str] = set()
    dirs: set[str] = set()
    entries = lines[1:-1]
    unit = (len(entries[0]) - len(entries[0].lstrip(" "))) if entries else 1
    if unit == 0:
        raise ValueError(f"the root's first entry is not indented: {entries[0]!r}")
    open_dirs = [""]  # open_dirs[d]: the expanded directory whose entries are at depth d + 1
    for line in entries:
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        depth, odd = divmod(indent, unit)
        if odd or not 1 <= depth <= len(open_dirs):
            raise ValueError(f"bad indentation: {line!r}")
        del open_dirs[depth:]
        if _MORE.fullmatch(body):
            continue
        names, tail = _segments(body)
        prefix = open_dirs[-1]
        parts = [f"{prefix}/{n}" if prefix else n for n in names[:1]]
        for name in names[1:]:
            parts.append(f"{parts[-1]}/{name}")
        leaf = parts[-1]
        dirs.update(parts[:-1])  # a folded chain's upper directories are expanded
        if tail is None:
            files.add(leaf)
        elif tail == " (repository)":
            files.add(leaf + "/")
        else:
            dirs.add(leaf)
            if tail == "":
                open_dirs.append(leaf)
    return Named(frozenset(files), frozenset(dirs))


_GEMINI_LINE = re.compile(r"((?:│   |    )*)(?:├───|└───)(.*)")
_TRUNCATED = "..."


def parse_gemini(text: str) -> Named:
    """``getFolderStructure``'s output: a summary, a blank line, the root path, then a tree
    drawn with ``├───``/``└───`` and four columns a level; ``...`` marks what is left out."""
    lines = text.split("\n")
    if not lines[0].startswith("Showing up to ") or lines[1] != "" or not lines[2].endswith("/"):
        raise ValueError(f"not a Gemini CLI folder listing: {text[:200]!r}")
    files: set[str] = set()
    dirs: set[str] = set()
    open_dirs = [""]
    for line in lines[3:]:
        if not line:  # an empty listing ends with the root line's newline
            continue
        match = _GEMINI_LINE.fullmatch(line)
        if match is None:
            raise ValueError(f"unexpected line: {line!r}")
        depth = len(match.group(1)) // 4
        if depth >= len(open_dirs):
            raise ValueError(f"bad indentation: {line!r}")
        del open_dirs[depth + 1 :]
        name = match.group(2)
        if name == _TRUNCATED:
            continue
        prefix = open_dirs[-1]
        path = f"{prefix}/{name}" if prefix else name
        if name.endswith("/" + _TRUNCATED):  # an ignored folder: shown, never read
            dirs.add(path.removesuffix("/" + _TRUNCATED))
        elif name.endswith("/"):
            dirs.add(path[:-1])
            open_dirs.append(path[:-1])
        else:
            files.add(path)
    return Named(frozenset(files), frozenset(dirs))
