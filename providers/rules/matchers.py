"""One matcher per glob flavour, behind one seam: how a rule's patterns combine into a verdict.

Tools disagree on more than single globs (:mod:`providers.rules.flavours` translates
those): on what a leading ``!`` means and on how patterns add up. gitignore
(Cursor, Windsurf, generic): the last matching line decides, ``!`` re-includes.
minimatch (Continue's ``matchesGlobs``): some inclusion matches and no ``!``
exclusion does, in any order. picomatch (Cline): every pattern is an alternative,
``!p`` one that matches what ``p`` does not. VS Code (Copilot): every pattern is an
alternative, ``!`` an ordinary character. Claude Code: gitignore lines asked of the
path and each folder above it, the case ignored.

Each :class:`Matcher` takes the patterns as written (braces not yet expanded) and
raises :class:`~providers.rules.flavours.GlobTranslationError` for a typo; the rest
of the package sees only :class:`~providers.rules.glob_match.GlobMatch` and
:class:`~providers.rules.glob_match.Inclusion`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from providers.repository.wildmatch import RuleSet, path_bytes
from providers.rules.braces import expand_braces
from providers.rules.claude_glob import Line, claude_patterns, compile_line
from providers.rules.flavours import (
    NEVER,
    Flavour,
    GlobTranslationError,
    check_pattern,
    glob_regex,
    negated,
)
from providers.rules.glob_match import GlobMatch, Inclusion
from providers.rules.vscode_glob import compile_vscode, vscode_regex


class Matcher(Protocol):
    """A rule's patterns compiled in one flavour."""

    def __bool__(self) -> bool:
        """Whether any pattern is left to match with."""
        ...

    def match(self, path: str) -> GlobMatch | None:
        """The deciding pattern when ``path`` (repo-relative POSIX) is included, else None;
        of several including patterns, the most specific."""
        ...

    def inclusions(self) -> tuple[Inclusion, ...]:
        """Every including pattern with its compiled regex."""
        ...


def _more_specific(best: GlobMatch | None, candidate: GlobMatch) -> GlobMatch:
    return candidate if best is None or candidate.specificity > best.specificity else best


class GitignoreMatcher:
    """gitignore lines (:mod:`providers.repository.wildmatch`): a pattern without a slash
    matches at any depth, a later ``!pattern`` excludes what an earlier one included;
    only exclusions read as "everything except these"."""

    def __init__(self, written: Sequence[str]) -> None:
        lines: list[str] = []
        origin: list[str] = []
        for one in written:
            excludes = one.startswith("!")
            for expanded in expand_braces(one[1:] if excludes else one):
                check_pattern(expanded)
                if expanded.startswith("#"):
                    expanded = "\\" + expanded  # a leading "#" would make a gitignore comment
                lines.append("!" + expanded if excludes else expanded)
                origin.append(one)
        if lines and all(line.startswith("!") for line in lines):
            lines.insert(0, "**")
            origin.insert(0, "**")
        if not all(lines):  # "{,}" expands to nothing: no pattern to match with
            raise GlobTranslationError(f"could not compile patterns {tuple(written)!r}")
        self._lines = tuple(lines)
        self._origin = tuple(origin)
        self._rules = RuleSet(lines)  # never fails: what git would never match matches nothing

    def __bool__(self) -> bool:
        return bool(self._lines)

    def match(self, path: str) -> GlobMatch | None:
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
            best = _more_specific(best, GlobMatch(self._origin[index], self._lines[index]))
        return best

    def inclusions(self) -> tuple[Inclusion, ...]:
        return tuple(
            Inclusion(written, line, rule.regex)
            for written, line, rule in zip(
                self._origin, self._lines, self._rules.rules, strict=True
            )
            if rule is not None and rule.include
        )


@dataclass(frozen=True)
class _Compiled:
    written: str
    expanded: str
    exclude: bool
    regex: re.Pattern[bytes]


def _compiled(written: str, expanded: str, source: bytes, *, exclude: bool = False) -> _Compiled:
    """Compiled with ``re.DOTALL`` as gitignore rules are, so the prefilter
    (:func:`providers.repository.wildmatch.joined`) can join every flavour's regexes."""
    return _Compiled(written, expanded, exclude, re.compile(source, re.DOTALL))


class _ToolMatcher:
    """A tool's own library, translated: each expanded pattern one regex; a path is in
    when some inclusion matches and no exclusion does. Subclasses say how a pattern
    translates (:meth:`translate`) and what a leading ``!`` makes of it (:meth:`_bang`)."""

    floats: ClassVar[bool] = False
    """Whether a pattern without a slash matches a name at any depth (see
    :attr:`~providers.rules.glob_match.Inclusion.floats`)."""
    bang_negates: ClassVar[bool] = True
    """Whether a leading ``!`` is an operator (:meth:`_bang`) rather than a character."""

    def __init__(self, written: Sequence[str]) -> None:
        self._compiled = tuple(self._completed([c for one in written for c in self._compile(one)]))
        self._inclusions = tuple(
            Inclusion(c.written, c.expanded, c.regex, self.floats)
            for c in self._compiled
            if not c.exclude
        )

    def translate(self, pattern: str) -> bytes:
        """The regex source (bytes, ``\\Z``-anchored) of one brace-free pattern."""
        raise NotImplementedError

    def _compile(self, written: str) -> Iterator[_Compiled]:
        """``written``'s expansions, a leading ``!`` applied to each."""
        bang = self.bang_negates and written.startswith("!")
        for expanded in expand_braces(written[1:] if bang else written):
            source = self.translate(expanded)
            if bang:
                yield self._bang(written, expanded, source)
            else:
                yield _compiled(written, expanded, source)

    def _bang(self, written: str, expanded: str, source: bytes) -> _Compiled:
        """``!expanded``, whose regex without the ``!`` is ``source``."""
        raise NotImplementedError

    def _completed(self, compiled: list[_Compiled]) -> list[_Compiled]:
        return compiled

    def __bool__(self) -> bool:
        return bool(self._compiled)

    def match(self, path: str) -> GlobMatch | None:
        data = path_bytes(path)
        best: GlobMatch | None = None
        for c in self._compiled:
            if c.regex.match(data) is None:
                continue
            if c.exclude:
                return None
            best = _more_specific(best, GlobMatch(c.written, c.expanded))
        return best

    def inclusions(self) -> tuple[Inclusion, ...]:
        return self._inclusions


class MinimatchMatcher(_ToolMatcher):
    """minimatch, default options (Continue): ``!p`` excludes whatever ``p`` matches, in
    any order; only exclusions means everything else."""

    def translate(self, pattern: str) -> bytes:
        check_pattern(pattern)
        return glob_regex(pattern, dot=False, posix=True, bang=True, bare_parent=False) + b"\\Z"

    def _bang(self, written: str, expanded: str, source: bytes) -> _Compiled:
        return _compiled(written, expanded, source, exclude=True)

    def _completed(self, compiled: list[_Compiled]) -> list[_Compiled]:
        if compiled and all(c.exclude for c in compiled):
            return [_compiled("**", "**", rb".+\Z"), *compiled]
        return compiled


class PicomatchMatcher(_ToolMatcher):
    """picomatch with ``{dot: true}`` (Cline): ``!p`` is one more
    alternative, matching whatever ``p`` does not."""

    def translate(self, pattern: str) -> bytes:
        check_pattern(pattern)
        return glob_regex(pattern, dot=True, posix=True, bang=False, bare_parent=True) + b"\\Z"

    def _bang(self, written: str, expanded: str, source: bytes) -> _Compiled:
        return _compiled(written, "!" + expanded, negated(source))


class VscodeMatcher:
    """VS Code's glob as Copilot calls it (:mod:`providers.rules.vscode_glob`): ``**/``
    prepended unless the pattern starts with ``/`` or ``**/``, case-insensitive, ``!`` a
    plain character. Braces are an alternation inside VS Code's regex, which decides;
    each alternative (braces expanded) is also an :class:`Inclusion` carrying that same
    regex, so labels and the pattern check can name the alternative that matched."""

    def __init__(self, written: Sequence[str]) -> None:
        compiled: list[tuple[str, re.Pattern[bytes], tuple[str, ...]]] = []
        for one in written:
            regex = compile_vscode(self.translate(one))
            compiled.append((one, regex, tuple(expand_braces(one)) or (one,)))
        self._compiled = tuple(compiled)
        self._inclusions = tuple(
            Inclusion(one, expanded, regex, True, folds_case=True)
            for one, regex, alternatives in self._compiled
            for expanded in alternatives
        )

    @staticmethod
    def translate(pattern: str) -> bytes:
        check_pattern(pattern)
        body = pattern.strip()
        if body.startswith("/"):
            return NEVER  # matched against absolute paths: never a repo-relative one
        if not body.startswith("**/"):
            body = "**/" + body  # "*", "**" and "**/*" then match every file, as Copilot says
        return vscode_regex(body, ignore_case=True)

    def __bool__(self) -> bool:
        return bool(self._compiled)

    def match(self, path: str) -> GlobMatch | None:
        data = path_bytes(path)
        best: GlobMatch | None = None
        for one, regex, alternatives in self._compiled:
            if regex.match(data) is None:
                continue
            named = one if len(alternatives) > 1 else alternatives[0]
            for alternative in alternatives if len(alternatives) > 1 else ():
                if compile_vscode(self.translate(alternative)).match(data) is not None:
                    named = alternative
                    break
            best = _more_specific(best, GlobMatch(one, named))
        return best

    def inclusions(self) -> tuple[Inclusion, ...]:
        return self._inclusions


class ClaudeMatcher:
    """Claude Code's ``paths:`` (:mod:`providers.rules.claude_glob`): each written pattern's
    lines (braces expanded, a trailing ``/**`` dropped) as gitignore lines, case ignored;
    the path and each folder above it are asked, the top folder first, and the first that
    matches decides (a later ``!`` line re-includes only at the same level)."""

    def __init__(self, written: Sequence[str]) -> None:
        lines: list[Line] = []
        for one in written:
            for expanded in claude_patterns(one):
                check_pattern(expanded)
                line = compile_line(one, expanded)
                if line is not None:
                    lines.append(line)
        self._lines = tuple(lines)
        self._inclusions = tuple(
            Inclusion(line.written, line.expanded, line.below, True, folds_case=True)
            for line in self._lines
            if not line.negative
        )

    def __bool__(self) -> bool:
        return bool(self._lines)

    def match(self, path: str) -> GlobMatch | None:
        if not self._inclusions:
            return None
        data = path_bytes(path)
        ends = [i + 1 for i, byte in enumerate(data) if byte == 0x2F and i > 0]
        for end in (*ends, len(data)):
            decided = self._decide(data[:end])
            if decided is not None:
                return GlobMatch(decided.written, decided.expanded)
        return None

    def _decide(self, folder: bytes) -> Line | None:
        found: Line | None = None
        for line in self._lines:
            if (found is not None) is line.negative and line.folder.match(folder) is not None:
                found = None if line.negative else line
        return found

    def inclusions(self) -> tuple[Inclusion, ...]:
        return self._inclusions


MATCHERS: Mapping[Flavour, Callable[[Sequence[str]], Matcher]] = {
    Flavour.GITIGNORE: GitignoreMatcher,
    Flavour.MINIMATCH: MinimatchMatcher,
    Flavour.PICOMATCH: PicomatchMatcher,
    Flavour.VSCODE: VscodeMatcher,
    Flavour.CLAUDE: ClaudeMatcher,
}
"""The matcher for each flavour (a test checks that every flavour has one)."""
