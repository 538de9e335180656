"""Rule globs: the many ways tools write them, matched the way their own tool matches them.

Tools write globs as a YAML string, a comma-separated string or a list, with
brace alternatives (``*.{ts,tsx}``) that gitignore syntax lacks. We expand the
braces ourselves (:mod:`providers.rules.braces`), then match with the matcher of
the rule's :class:`~providers.rules.flavours.Flavour` (:mod:`providers.rules.matchers`):
gitignore for tools that publish no matcher, else a regex translation of the
tool's own library (minimatch, picomatch, VS Code's glob). Paths are
repo-relative POSIX strings.
"""

from __future__ import annotations

from collections.abc import Iterable

from providers.rules.braces import split_top_level_commas
from providers.rules.flavours import Flavour, GlobTranslationError
from providers.rules.glob_match import GlobMatch, Inclusion
from providers.rules.matchers import MATCHERS


class GlobError(ValueError):
    """A glob value of the wrong shape (not a string or a list of strings), or a pattern
    with a typo its tool would silently never match."""


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
        for part in split_top_level_commas(item):
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


class GlobSet:
    """A rule's patterns compiled once in its flavour; ``match`` says which pattern decided."""

    def __init__(self, patterns: Iterable[str], flavour: Flavour = Flavour.GITIGNORE) -> None:
        self.written: tuple[str, ...] = tuple(patterns)
        self.flavour = flavour
        try:
            self._matcher = MATCHERS[flavour](self.written)
        except GlobTranslationError as exc:  # a typo every flavour reports, not a silent miss
            raise GlobError(str(exc)) from None

    def __bool__(self) -> bool:
        return bool(self._matcher)

    def match(self, path: str) -> GlobMatch | None:
        """The deciding pattern when ``path`` is included, else ``None``.

        When several inclusions cover the path (and no later exclusion undoes
        them), the most specific one is reported: the label names it and the
        ordering scores it.
        """
        return self._matcher.match(path)

    def inclusions(self) -> tuple[Inclusion, ...]:
        """Every inclusion pattern with its compiled regex."""
        return self._matcher.inclusions()
