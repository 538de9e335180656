"""Rule globs: the many ways tools write them, matched the way their own tool matches them.

Tools write globs as a YAML string, a comma-separated string or a list, with
brace alternatives (``*.{ts,tsx}``) that gitignore syntax lacks. We expand the
braces ourselves, then match in the rule's :class:`~providers.rules.flavours.Flavour`:
gitignore (:mod:`providers.repository.wildmatch`: a pattern without a slash matches
at any depth, a later ``!pattern`` excludes what an earlier one included) for
tools that publish no matcher, else a regex translation of the tool's own
library (minimatch, picomatch, VS Code's glob). Paths are repo-relative POSIX
strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from providers.repository.wildmatch import RuleSet, path_bytes
from providers.rules.flavours import (
    Flavour,
    GlobTranslationError,
    check_pattern,
    negated,
    translate,
)

MAX_EXPANSIONS = 256
"""Brace alternatives one pattern may expand to; beyond that it is kept literal."""

_WILDCARDS = frozenset("*?[")


class GlobError(ValueError):
    """A glob value of the wrong shape (not a string or a list of strings)."""


def parse_globs(value: object) -> tuple[str, ...]:
    """Patterns from a front matter value: ``None``, a string, a comma string or a list.

    Commas inside braces do not split (``*.{ts,tsx}`` stays one pattern).
    Leading ``./`` is dropped; blank entries vanish.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[object] = [value]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise GlobError(f"expected a string or a list of strings, got {type(value).__name__}")
    patterns: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise GlobError(f"expected strings in the glob list, got {type(item).__name__}")
        for part in _split_top_level_commas(item):
            cleaned = _clean(part)
            if cleaned and cleaned not in patterns:
                patterns.append(cleaned)
    return tuple(patterns)


def _clean(pattern: str) -> str:
    pattern = pattern.strip()
    negated = pattern.startswith("!")
    body = pattern[1:].lstrip() if negated else pattern
    while body.startswith("./"):
        body = body[2:]
    if negated and not body:
        raise GlobError(f"{pattern!r} negates nothing")
    if not body:
        return ""
    return "!" + body if negated else body


def _split_top_level_commas(text: str) -> list[str]:
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
            alternatives = _split_top_level_commas(inner)
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


class GlobSet:
    """A rule's patterns compiled once; ``match`` says which pattern decided."""

    def __init__(self, patterns: Iterable[str], flavour: Flavour = Flavour.GITIGNORE) -> None:
        self.written: tuple[str, ...] = tuple(patterns)
        self.flavour = flavour
        if flavour is not Flavour.GITIGNORE:
            self._tool = _ToolGlobs(self.written, flavour)
            self._lines = self._tool.lines
            return
        lines: list[str] = []
        origin: list[str] = []
        for written in self.written:
            negated = written.startswith("!")
            body = written[1:] if negated else written
            for one in expand_braces(body):
                _check(one)
                if one.startswith("#"):
                    one = "\\" + one  # a leading "#" would make a gitignore comment
                lines.append("!" + one if negated else one)
                origin.append(written)
        if lines and all(line.startswith("!") for line in lines):
            # Only exclusions: read as "everything except these".
            lines.insert(0, "**")
            origin.insert(0, "**")
        if not all(lines):  # "{,}" expands to nothing: no pattern to match with
            raise GlobError(f"could not compile patterns {self.written!r}")
        self._lines = tuple(lines)
        self._origin = tuple(origin)
        self._rules = RuleSet(lines)  # never fails: what git would never match matches nothing

    def __bool__(self) -> bool:
        return bool(self._lines)

    def match(self, path: str) -> GlobMatch | None:
        """The deciding pattern when ``path`` is included, else ``None``.

        When several inclusions cover the path (and no later exclusion undoes
        them), the most specific one is reported: the label names it and the
        ordering scores it.
        """
        if self.flavour is not Flavour.GITIGNORE:
            return self._tool.match(path)
        if self._rules.decide(path) is not True:
            return None
        data = path_bytes(path)  # encoded once, not once a rule
        best: GlobMatch | None = None
        for index in range(len(self._lines) - 1, -1, -1):
            rule = self._rules.rules[index]
            if rule is None or rule.regex.match(data) is None:
                continue
            if not rule.include:
                break  # everything earlier was undone by this exclusion
            candidate = GlobMatch(self._origin[index], self._lines[index])
            if best is None or candidate.specificity > best.specificity:
                best = candidate
        return best

    def inclusions(self) -> tuple[Inclusion, ...]:
        """Every inclusion pattern with its compiled regex."""
        if self.flavour is not Flavour.GITIGNORE:
            return self._tool.inclusions
        found: list[Inclusion] = []
        for written, line, rule in zip(self._origin, self._lines, self._rules.rules, strict=True):
            if rule is not None and rule.include:
                found.append(Inclusion(written, line, rule.regex))
        return tuple(found)


def _check(pattern: str) -> None:
    """The typos every flavour reports rather than silently never matching."""
    try:
        check_pattern(pattern)
    except GlobTranslationError as exc:
        raise GlobError(str(exc)) from None


@dataclass(frozen=True)
class _Compiled:
    written: str
    expanded: str
    exclude: bool
    regex: re.Pattern[bytes]


class _ToolGlobs:
    """Patterns in a tool's own flavour: each one a regex, combined as that tool combines them.

    minimatch (Continue's ``matchesGlobs``): some inclusion matches and no ``!``
    exclusion does, in any order; only exclusions means everything else.
    picomatch (Cline, Claude Code): every pattern is an alternative, ``!p`` one
    that matches what ``p`` does not. VS Code: every pattern is an alternative,
    ``!`` an ordinary character. Compiled with ``re.DOTALL`` as gitignore rules are, so
    the prefilter (:func:`providers.repository.wildmatch.joined`) can join every flavour's regexes.
    """

    def __init__(self, written: tuple[str, ...], flavour: Flavour) -> None:
        compiled: list[_Compiled] = []
        for one in written:
            is_not = one.startswith("!") and flavour is not Flavour.VSCODE
            body = one[1:] if is_not else one
            for expanded in expand_braces(body):
                try:
                    source = translate(expanded, flavour)
                except GlobTranslationError as exc:
                    raise GlobError(str(exc)) from None
                exclude = is_not and flavour is Flavour.MINIMATCH
                if is_not and flavour is Flavour.PICOMATCH:
                    source, expanded = negated(source), "!" + expanded
                compiled.append(_Compiled(one, expanded, exclude, re.compile(source, re.DOTALL)))
        if compiled and all(c.exclude for c in compiled):
            compiled.insert(0, _Compiled("**", "**", False, re.compile(rb".+\Z", re.DOTALL)))
        self.lines = tuple(c.expanded for c in compiled)
        self._compiled = tuple(compiled)
        floats = flavour is Flavour.VSCODE
        self.inclusions = tuple(
            Inclusion(c.written, c.expanded, c.regex, floats) for c in compiled if not c.exclude
        )

    def match(self, path: str) -> GlobMatch | None:
        data = path_bytes(path)
        best: GlobMatch | None = None
        for c in self._compiled:
            if c.regex.match(data) is None:
                continue
            if c.exclude:
                return None
            candidate = GlobMatch(c.written, c.expanded)
            if best is None or candidate.specificity > best.specificity:
                best = candidate
        return best
