"""What matching a rule's globs reports: the deciding pattern, how narrow it is, and each
including pattern with its compiled regex (for the prefilter and the pattern check).

Every flavour's matcher (:mod:`providers.rules.matchers`) answers in these terms, so
what comes after (labels, ordering, the index) never asks which flavour matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WILDCARDS = frozenset("*?[")


def specificity(pattern: str) -> tuple[int, int, int]:
    """How narrowly ``pattern`` (one expanded pattern, no braces) picks paths; larger wins.

    In order: literal leading directory segments of an anchored pattern (a
    pattern without a slash floats, so it has none), then literal characters,
    then fewer ``*``. ``src/auth/login.py`` > ``src/auth/*.py`` >
    ``src/auth/**`` > ``src/**`` > ``*.py``; a nested ``src/auth/AGENTS.md``
    scores as ``src/auth/**``.
    """
    body = pattern.lstrip("!").lstrip("/")
    anchored = "/" in body.rstrip("/") or pattern.lstrip("!").startswith("/")
    segments = [s for s in body.split("/") if s]
    literal_segments = 0
    if anchored:
        for segment in segments:
            if _WILDCARDS.intersection(segment):
                break
            literal_segments += 1
    literal_chars = sum(1 for ch in body if ch not in "*?[]/")
    stars = body.count("*")
    return literal_segments, literal_chars, -stars


@dataclass(frozen=True)
class GlobMatch:
    """Which pattern made a path match: as the author wrote it, and as expanded."""

    written: str
    expanded: str

    @property
    def specificity(self) -> tuple[int, int, int]:
        return specificity(self.expanded)


@dataclass(frozen=True)
class Inclusion:
    """One including pattern: as written, as expanded, and its compiled regex.

    Matched (``re.match``) against a path's bytes
    (:func:`providers.repository.wildmatch.path_bytes`), the regex also hits paths
    below a directory it matches (:class:`providers.repository.wildmatch.Rule`);
    ``None`` would send callers the slow way.
    """

    written: str
    expanded: str
    regex: re.Pattern[bytes] | None
    floats: bool = True
    """Whether a pattern without a slash matches a name at any depth (gitignore, VS Code's
    ``**/`` prefix); minimatch and picomatch match such a pattern against top-level names."""
    folds_case: bool = False
    """Whether case does not count (VS Code's glob as Copilot calls it, Claude Code's)."""
