"""The parsers checked on generated trees before every run: a parser that dropped lines
would read as a map that names too little, so a benchmark figure is only as good as
them.

Each format is checked twice: a tree small enough to show whole must parse
back to every one of its files (odd names included: quoted, spaced, a
parenthesis that is not a count, a nested repository, a one-file chain), and
a truncated one must parse to exactly as many entries as the map says it shows.
The benchmark parses every map of a run with the ``_checked`` parsers too.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchmarks.orientation.parse import Named, parse_gemini, parse_ours
from providers.core.budget import FallbackCounter
from providers.file_tree.section import Presentation, build_section
from providers.file_tree.tree import Tree

ODD = (
    "README.md",
    "src/app/main.py",
    "src/app/util/helpers.py",
    "a/b/c/d.proto",
    'we"ird.txt',
    " leading space.md",
    "tab\tname.py",
    "back\\slash.txt",
    "uni/ü.md",
    "docs/x (copy).md",
    "docs/(1 file)/y.md",
    "dir with space/f.txt",
)
NESTED_REPOSITORY = "vendor/lib/"
_SHOWN = re.compile(r"\(shown: ([\d,]+) of [\d,]+ files, ([\d,]+) of ")
GEMINI_ITEMS = 200


def generated(files: int) -> list[str]:
    """``files`` paths three levels deep, ten to a directory: far more than a budget shows."""
    return [f"pkg{i % 7}/mod{i % 13}/sub{i % 10}/file{i}.txt" for i in range(files)]


def small_tree() -> list[str]:
    return [*ODD, NESTED_REPOSITORY]


def parse_ours_checked(text: str) -> Named:
    """:func:`parse_ours`, asserting it found as many files and directories as the
    section's totals line says are shown (every map of a run is checked this way)."""
    named = parse_ours(text)
    shown = _SHOWN.search(text.rstrip("\n").rsplit("\n", 1)[-1])
    assert shown is not None, text
    files, dirs = (int(g.replace(",", "")) for g in shown.groups())
    # A nested repository is named like a file (a commit can bump it); the totals line
    # counts it with the directories (the pinned baseline: with the files).
    repositories = sum(1 for f in named.files if f.endswith("/"))
    counted = {
        (len(named.files) - repositories, len(named.dirs) + repositories),
        (len(named.files), len(named.dirs)),
    }
    assert (files, dirs) in counted, (shown.group(0), text)
    return named


def parse_gemini_checked(text: str) -> Named:
    """:func:`parse_gemini`, asserting it found no more than the items Gemini CLI shows."""
    named = parse_gemini(text)
    assert named.entries <= GEMINI_ITEMS, named.entries
    return named


def check_ours_text(text: str, paths: Sequence[str], whole: bool) -> None:
    """``text`` (a rendering of ``paths``) parses to what it shows, all of it when ``whole``."""
    named = parse_ours_checked(text)
    if whole:
        assert named.files == set(paths), sorted(set(paths) ^ named.files)
    assert named.files <= set(paths), sorted(named.files - set(paths))


def check_ours() -> None:
    """The file tree format, rendered by the current renderer, parses back."""
    for paths, touched, whole in (
        (small_tree(), (), True),
        (generated(3000), ("pkg3/mod9/sub9/file2999.txt",), False),
    ):
        section = build_section(
            Tree.of(paths), Presentation("/tmp/selfcheck"), touched, 1000, FallbackCounter()
        )
        assert section is not None
        check_ours_text(section.text, paths, whole)
        assert set(touched) <= parse_ours(section.text).files, "a touched file is not named"


def gemini_fixtures(scratch: Path) -> list[Path]:
    """Two directories for Gemini CLI to list: the odd names (plus an ignored
    ``node_modules``), and a tree past its 200 items."""
    shutil.rmtree(scratch, ignore_errors=True)
    small, big = scratch / "small", scratch / "big"
    for root, paths in (
        (small, [*ODD, "node_modules/pkg/index.js"]),
        (big, generated(600)),
    ):
        for rel in paths:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("")
    return [small, big]


def check_gemini(listings: Mapping[Path, str], fixtures: Sequence[Path]) -> None:
    small, big = fixtures
    named = parse_gemini_checked(listings[small])
    assert named.files == set(ODD), sorted(set(ODD) ^ named.files)
    assert "node_modules" in named.dirs
    named = parse_gemini_checked(listings[big])
    assert named.files <= set(generated(600))
    assert named.entries == GEMINI_ITEMS, named.entries
