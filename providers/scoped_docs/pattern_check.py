"""Which rule patterns match no file in the repository, told to their authors once.

A glob with a typo never fires and nobody notices; checking it needs every
path in the repository (:func:`providers.repository.files.list_repo_files`:
git's listing, or a bounded walk applying the same ignore rules). This runs
at discovery and when a rule changes, never on the per-turn path.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

from providers.repository.files import list_repo_files
from providers.repository.wildmatch import matcher, path_bytes
from providers.rules.glob_match import Inclusion, specificity
from providers.rules.load import Rule

log = logging.getLogger(__name__)

MAX_CHECKS = 1_000_000
"""Path tests per check run (about a second); past it the remaining patterns are not judged."""

MAX_REPORTS = 20
"""Patterns named one by one in the log per check; the rest are counted."""


class PatternCheck:
    """Reports, once per session, rule patterns that match no file in the repository."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.reported: set[tuple[str, str]] = set()
        self._files: tuple[str, ...] | None = None
        self._names: tuple[str, ...] | None = None

    def check(self, rules: Iterable[Rule], seen: Collection[str] = ()) -> list[tuple[str, str]]:
        """New (rule path, pattern as written) pairs whose every expansion matches nothing.

        Paths the agent touched count as files (they may be about to exist).
        Logs each once as a warning (the first :data:`MAX_REPORTS`, then a count).
        """
        found: list[tuple[str, str]] = []
        budget = [MAX_CHECKS]
        for rule in rules:
            if rule.globs is None:
                continue
            by_written: dict[str, list[Inclusion]] = {}
            for inclusion in rule.globs.inclusions():
                if (rule.path, inclusion.written) not in self.reported:
                    by_written.setdefault(inclusion.written, []).append(inclusion)
            for written, inclusions in by_written.items():
                hits = [self._matches_something(i, seen, budget) for i in inclusions]
                if budget[0] <= 0:
                    log.debug("stopped checking rule patterns: over %d path tests", MAX_CHECKS)
                    self._log(found)
                    return found
                if not any(hits):
                    self.reported.add((rule.path, written))
                    found.append((rule.path, written))
        self._log(found)
        return found

    @staticmethod
    def _log(found: Sequence[tuple[str, str]]) -> None:
        for rule, written in found[:MAX_REPORTS]:
            log.warning("rule %s: pattern %r matches no file in the repository", rule, written)
        if len(found) > MAX_REPORTS:
            log.warning(
                "%d more rule patterns match no file in the repository", len(found) - MAX_REPORTS
            )

    def _matches_something(
        self, inclusion: Inclusion, seen: Collection[str], budget: list[int]
    ) -> bool:
        test = _test(inclusion)
        for path in self._candidates(inclusion.expanded, inclusion.floats, inclusion.folds_case):
            budget[0] -= 1
            if test(path):
                return True
            if budget[0] <= 0:
                return True  # unknown: never report what was not checked
        return any(test(path) for path in seen)

    def _candidates(
        self, pattern: str, floats: bool = True, folds_case: bool = False
    ) -> Sequence[str]:
        files = self.files
        if pattern.startswith("!"):
            return files  # picomatch's "!p" matches outside p's directory: no shortcut
        if floats and _floats_on_one_name(pattern):
            # Such a pattern matches a path exactly when it matches one of its names.
            if self._names is None:
                self._names = tuple(sorted({part for f in files for part in f.split("/")}))
            return self._names
        return files if folds_case else _slice(pattern, files)  # a sorted slice needs the case

    @property
    def files(self) -> tuple[str, ...]:
        if self._files is None:
            self._files = list_repo_files(self.root)
        return self._files


def _test(inclusion: Inclusion) -> Callable[[str], bool]:
    """Whether a path matches the inclusion: its compiled regex on the path's bytes."""
    regex = inclusion.regex
    if regex is None:
        return matcher(inclusion.expanded)
    match = regex.match
    return lambda path: match(path_bytes(path)) is not None


def _floats_on_one_name(pattern: str) -> bool:
    """``*.py`` or ``**/*.py``: no anchoring, one name, not directories only."""
    body = pattern
    while body.startswith("**/"):
        body = body[3:]
    return bool(body) and "/" not in body and "**" not in body


def _slice(pattern: str, files: Sequence[str]) -> Sequence[str]:
    literal_dirs, _, _ = specificity(pattern)
    if literal_dirs == 0:
        return files
    prefix = "/".join(pattern.lstrip("/").split("/")[:literal_dirs])
    if "\\" in prefix:
        return files
    # Paths equal to the prefix or under it; "0" sorts right after "/".
    lo = bisect.bisect_left(files, prefix)
    hi = bisect.bisect_left(files, prefix + "0")
    return files[lo:hi]
