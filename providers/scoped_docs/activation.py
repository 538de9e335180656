"""Which docs the session has activated, matched incrementally as files are touched.

``files_touched`` only grows within a session, and a doc once active stays
active, so each turn matches only the paths it has not seen before against
the rules not yet active. A rule that changed on disk is the one exception:
it is matched again against every path seen so far.

A turn matches new paths until its deadline (each may mean reading a nested
doc); the rest wait in :attr:`SessionDocs.backlog` and go first on the next turn.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from providers.core.deadline import NEVER, Deadline
from providers.core.lru import LruMap
from providers.repository.paths import ancestors
from providers.rules.catalog import Catalog
from providers.rules.glob_match import GlobMatch
from providers.rules.load import Rule
from providers.scoped_docs.index import RuleIndex

MAX_CACHED_ENTRIES = 20_000
"""Formatted entries a session keeps; past that the least recently used go (it is only a
cache)."""


@dataclass(frozen=True)
class Activation:
    """Why a rule applies: the first touched path it matched and the pattern that did."""

    rule: str
    touched: str
    match: GlobMatch

    @property
    def specificity(self) -> tuple[int, int, int]:
        return self.match.specificity


class SessionDocs:
    """One agent session's docs: the paths it touched and the docs they activated."""

    def __init__(self) -> None:
        self.seen: dict[str, None] = {}
        self._raw_seen: dict[str, set[str]] = {}
        self._last_raw: tuple[str, tuple[str, ...]] = ("", ())
        self.active: dict[str, Activation] = {}
        self.pending: set[str] = set()
        """Rule paths changed on disk since this session last looked."""
        self.turn = 0
        """Turns that touched new paths so far."""
        self.revision = 0
        """Moves on whenever docs change other than by a turn's touch (a rule changed on
        disk): a ranking kept between turns starts again."""
        self.fresh: tuple[str, ...] = ()
        """The paths the latest such turn touched: the files in hand."""
        self.last_turn: dict[str, int] = {}
        """Per active doc: the last turn that touched a path in its scope."""
        self.in_hand: dict[str, dict[str, GlobMatch]] = {}
        """Per file in hand (``fresh``): the docs whose scope holds it and why, found
        through the index, so ranking never matches every fresh path against every doc."""
        self.entries: LruMap[tuple[object, ...], Any] = LruMap(MAX_CACHED_ENTRIES)
        """Formatted index entries by (doc, its version, why, idle turns): see ``priority``."""
        self.backlog: list[str] = []
        """New paths a turn had no time to match: the next turn takes them first."""

    def new_entries(self, working_directory: str, entries: tuple[str, ...]) -> list[str]:
        """``files_touched`` entries not seen before from this working directory, in order.

        The kernel resends the whole growing list every turn; when it only
        appended, comparing the known prefix is enough.
        """
        last_wd, last = self._last_raw
        self._last_raw = (working_directory, entries)
        if working_directory == last_wd and entries[: len(last)] == last:
            candidates = entries[len(last) :]
        else:
            candidates = entries
        seen = self._raw_seen.setdefault(working_directory, set())
        new = [e for e in dict.fromkeys(candidates) if e not in seen]
        seen.update(new)
        return new

    def refresh(self, catalog: Catalog) -> bool:
        """Re-match rules that changed on disk against every path seen; True if any did.

        Glob rules go through a prefilter of their own (hundreds of rules loaded in one
        turn, thousands of paths seen: matched one by one, that was seconds); each rule
        still activates on the first path seen, in order, that it matches.
        """
        if not self.pending:
            return False
        changed = set(self.pending)
        self.pending.clear()
        self.revision += 1
        rules = [catalog.rules[rel] for rel in sorted(changed) if rel in catalog.rules]
        for rel in changed:
            self.active.pop(rel, None)
        index = RuleIndex(rules)
        others = [rule for rule in rules if rule.globs is None]
        for path in self.seen:
            for rule in (*index.candidates(path), *others):
                if rule.path not in self.active:
                    self._try(rule, path)
        for path, docs in self.in_hand.items():
            for rel in changed & docs.keys():
                del docs[rel]
            for rule in (*index.candidates(path), *others):
                found = rule.match(path)
                if found is not None:
                    docs[rule.path] = found
        return True

    def touch(
        self,
        paths: Iterable[str],
        catalog: Catalog,
        index: RuleIndex,
        sent_elsewhere: Collection[str] = (),
        deadline: Deadline = NEVER,
    ) -> bool:
        """Match paths not seen before; True if anything the answer shows changed.

        A call with new paths is a new turn: they are the files in hand, and
        every active doc whose scope holds one of them is needed again. The
        nested docs of ``sent_elsewhere`` directories (those between the root and
        the working directory: repo conventions sends them) are not activated.
        """
        waiting = [*self.backlog, *paths]
        paths = [p for p in dict.fromkeys(waiting) if p not in self.seen]
        self.backlog = []
        if not paths:
            return False
        self.turn += 1
        self.fresh = tuple(paths)
        self.in_hand = {}
        for done, path in enumerate(paths):
            if done and deadline.expired():  # one path at least: every turn gets on
                self.backlog = paths[done:]
                self.fresh = tuple(paths[:done])
                break
            self.seen[path] = None
            docs = self.in_hand.setdefault(path, {})
            for rule in index.candidates(path):
                self._note(rule, path, docs)
            for directory in ancestors(path):
                if directory in sent_elsewhere:
                    continue
                for rule in catalog.nested_rules(directory):
                    self._note(rule, path, docs)
        for docs in self.in_hand.values():
            for rule_path in docs:
                self.last_turn[rule_path] = self.turn
        return True

    def _note(self, rule: Rule, path: str, docs: dict[str, GlobMatch]) -> None:
        """Match ``rule`` against the file in hand ``path``; activate it on a first match."""
        if rule.path in docs:
            return
        found = rule.match(path)
        if found is None:
            return
        docs[rule.path] = found
        if rule.path not in self.active:
            self.active[rule.path] = Activation(rule.path, path, found)

    def _try(self, rule: Rule, path: str) -> bool:
        found = rule.match(path)
        if found is None:
            return False
        self.active[rule.path] = Activation(rule.path, path, found)
        self.last_turn[rule.path] = self.turn
        return True
