"""Gitignore patterns compiled to regexes: the one module that knows pathspec.

``pathspec`` turns each gitignore line into a regex that the rest of the
code wants to use directly (the ignore rules, the scoped-docs prefilter,
the unmatched-pattern check): a C-level regex call per path is what makes a
walk or a thousand rules affordable. That regex is pathspec's private shape,
so everything that depends on it lives here, and
``tests/core/test_wildmatch.py`` fails with a message saying what changed if
a pathspec release changes it:

* ``GitIgnoreSpec.from_lines`` gives one pattern per non-empty line (comments
  and blank-looking lines are no-ops with ``include`` ``None``), each with a
  compiled ``regex`` attribute;
* a regex is *searched* against a repo-relative POSIX path, and also matches
  every path below a directory it matches; its named group ``ps_d`` then
  holds the ``/`` after that directory. ``ps_d`` closes the regex, so a
  regex with ``\\Z`` appended, searched in a directory's path plus ``/``,
  asks "is this directory itself matched?";
* ``ps_d`` is the only group name, at most once per regex, so regexes joined
  into one must lose their group names first (a name twice is an error);
  none uses backreferences, which joining would break.

Callers pass repo-relative POSIX paths. A :class:`Rule`'s regex sees them as
given; :meth:`RuleSet.decide` and :func:`matcher` go through pathspec's own
path normalisation first (a leading ``/`` or ``./`` dropped), as they always did.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError

DIRECTORY_GROUP = "ps_d"
"""pathspec's regex group for "matched a directory, the path goes on below it"."""

_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_BACKREF = re.compile(r"\\[1-9]|\(\?P=")


class PatternError(ValueError):
    """A line pathspec cannot compile (``a\\``: a trailing backslash escapes nothing)."""


class ShapeError(RuntimeError):
    """pathspec no longer compiles patterns the way this module reads them."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One gitignore pattern: whether it includes (``!`` makes it exclude) and its regex."""

    include: bool
    regex: re.Pattern[str]
    """Searched against a path; also hits every path below a directory it matches."""
    _itself: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _mark: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Only matches what ends at the end of the path: "is this directory itself matched?".
        # Wrapping adds no capturing group, so the mark has the same index in both.
        at_end = re.compile(f"(?:{self.regex.pattern})\\Z", self.regex.flags)
        object.__setattr__(self, "_itself", at_end)
        object.__setattr__(self, "_mark", self.regex.groupindex.get(DIRECTORY_GROUP, 0))

    def matches(self, path: str) -> bool:
        """pathspec's own reading: ``path`` matches, or lies below a directory that does."""
        return self.regex.search(path) is not None

    def matches_entry(self, path: str, is_dir: bool) -> bool:
        """git's reading: the entry ``path`` itself matches, never through an ancestor.

        git does not match a pattern against an ancestor directory; it just
        does not descend into an excluded one. A directory (``is_dir``, no
        trailing ``/``) also matches a directory-only pattern (``build/``),
        whose regex needs the ``/`` after the name.
        """
        mark = self._mark
        found = self.regex.search(path)
        if found is not None and not (mark and found.group(mark) is not None):
            return True
        if not is_dir or not mark:
            return False
        found = self._itself.search(path + "/")
        return found is not None and found.group(mark) is not None


def _spec(lines: Sequence[str]) -> GitIgnoreSpec:
    try:
        return GitIgnoreSpec.from_lines(lines)
    except (GitIgnorePatternError, re.error, ValueError) as exc:  # re.error: ``[z-a]``
        raise PatternError(str(exc)) from exc


def _entries(spec: GitIgnoreSpec, lines: Sequence[str]) -> list[Rule | None]:
    """One entry per line: its rule, or ``None`` for a no-op (empty, a comment, a lone ``/``)."""
    patterns = iter(spec.patterns)
    entries: list[Rule | None] = []
    for line in lines:
        pattern = next(patterns, None) if line else None  # pathspec skips empty lines
        if line and pattern is None:
            raise ShapeError(f"pathspec gave no pattern for line {line!r}")
        if pattern is None or pattern.include is None:
            entries.append(None)
            continue
        regex = getattr(pattern, "regex", None)
        if not isinstance(regex, re.Pattern) or not isinstance(regex.pattern, str):
            raise ShapeError(f"pathspec pattern {pattern!r} has no compiled str regex")
        entries.append(Rule(pattern.include, regex))
    if next(patterns, None) is not None:
        raise ShapeError(f"pathspec gave more patterns than the {len(lines)} lines")
    return entries


def compile_rules(lines: Iterable[str]) -> list[Rule]:
    """The patterns among gitignore ``lines``, in order; comments and blank lines give none.

    Raises :class:`PatternError` for a line pathspec cannot compile.
    """
    listed = list(lines)
    return [rule for rule in _entries(_spec(listed), listed) if rule is not None]


class RuleSet:
    """Gitignore lines with one entry each, decided as ``GitIgnoreSpec`` decides them.

    For callers that must know which line matched: ``rules[i]`` belongs to
    ``lines[i]`` (``None`` where the line is no pattern: empty, a comment, a
    lone ``/``). Raises :class:`PatternError` for a line pathspec cannot compile.
    """

    __slots__ = ("_spec", "rules")

    def __init__(self, lines: Sequence[str]) -> None:
        self._spec = _spec(lines)
        self.rules: tuple[Rule | None, ...] = tuple(_entries(self._spec, lines))

    def decide(self, path: str) -> bool | None:
        """True: included; False: excluded by a later negation; None: no line matches.

        pathspec's gitignore precedence: the last matching line wins, with its
        own rules for a match that only went through a directory.
        """
        return self._spec.check_file(path).include


def matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a path matches the one gitignore ``pattern`` (pathspec's full matcher)."""
    return _spec([pattern]).match_file


def joined(regexes: Sequence[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One regex that matches wherever any of ``regexes`` does, or ``None`` if it cannot be had.

    Group names go (the same name twice in one regex is an error, and a
    yes/no test needs no capture); a backreference would point elsewhere
    once joined, so it refuses; so do regexes with different flags.
    """
    if not regexes or len({regex.flags for regex in regexes}) != 1:
        return None
    sources: list[str] = []
    for regex in regexes:
        if _BACKREF.search(regex.pattern):
            return None
        sources.append(_NAMED_GROUP.sub("(?:", regex.pattern))
    try:
        return re.compile("|".join(f"(?:{source})" for source in sources), regexes[0].flags)
    except re.error:
        return None
