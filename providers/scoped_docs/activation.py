"""Which docs the session has activated, matched incrementally as files are touched.

``files_touched`` only grows within a session, and a doc once active stays
active, so each turn matches only the paths it has not seen before against
the rules not yet active. A rule that changed on disk is the one exception:
it is matched again against every path seen so far.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from providers.scoped_docs.catalog import Catalog
from providers.scoped_docs.globs import GlobMatch
from providers.scoped_docs.index import RuleIndex
from providers.scoped_docs.rules import Rule


@dataclass(frozen=True)
class Activation:
    """Why a rule applies: the first touched path it matched and the pattern that did."""

    rule: str
    touched: str
    match: GlobMatch

    @property
    def specificity(self) -> tuple[int, int, int]:
        return self.match.specificity


def ancestors(path: str) -> list[str]:
    """Directories holding ``path``, deepest first, excluding the repo root."""
    parents = PurePosixPath(path).parents
    return [p.as_posix() for p in parents if p.as_posix() != "."]


class Session:
    """One agent session's view: the paths seen and the docs they activated."""

    def __init__(self) -> None:
        self.seen: dict[str, None] = {}
        self.raw_seen: set[tuple[str, str]] = set()
        self.active: dict[str, Activation] = {}
        self.pending: set[str] = set()
        """Rule paths changed on disk since this session last looked."""
        self.looked_up: set[str] = set()
        self.match_calls = 0
        """How many (path, rule) matches ran: lets tests see that matching is incremental."""

    def refresh(self, catalog: Catalog) -> bool:
        """Re-match rules that changed on disk against every path seen; True if any did."""
        if not self.pending:
            return False
        changed = sorted(self.pending)
        self.pending.clear()
        for rel in changed:
            self.active.pop(rel, None)
            rule = catalog.rules.get(rel)
            if rule is not None:
                self._activate_from(rule, self.seen)
        return True

    def touch(self, paths: Iterable[str], catalog: Catalog, index: RuleIndex) -> bool:
        """Match paths not seen before; True if a doc became active."""
        new = [p for p in paths if p not in self.seen]
        if not new:
            return False
        before = len(self.active)
        for path in new:
            self.seen[path] = None
            for rule in index.candidates(path):
                if rule.path not in self.active:
                    self._try(rule, path)
            for directory in ancestors(path):
                if directory in self.looked_up:
                    continue
                self.looked_up.add(directory)
                for rule in catalog.nested_rules(directory):
                    if rule.path not in self.active:
                        self._try(rule, path)
        return len(self.active) != before

    def _activate_from(self, rule: Rule, paths: Iterable[str]) -> None:
        for path in paths:
            if self._try(rule, path):
                return

    def _try(self, rule: Rule, path: str) -> bool:
        self.match_calls += 1
        found = rule.match(path)
        if found is None:
            return False
        self.active[rule.path] = Activation(rule.path, path, found)
        return True
