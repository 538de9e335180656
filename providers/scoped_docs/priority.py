"""Which docs the budget goes to first: the rules for the files in hand. Pure.

The order is the display order and the fitter keeps the longest prefix, so:

1. round robin across the files touched this turn, each file's docs nearest
   first (a file's own directory's ``AGENTS.md`` before the repository-wide
   rule that also covers it): every file in hand gets its nearest doc before
   any file gets a second one;
2. always-apply rules this provider shows (all with ``always_apply = "ours"``; with
   ``leave``, those of extra configured directories), in the stated order
   (:mod:`providers.rules.order`);
3. docs activated on earlier turns, most recently needed first;
4. docs whose scope no turn has touched for :data:`RETIRE_AFTER` turns only
   named in the index (retired), so earlier work cannot push out the doc for
   the file being edited.

The same session state gives the same order, so the same request gives the
same bytes. :class:`Ranker` keeps that order between turns: a turn moves only the
docs it touches, those the turn before had in hand and those that retire now.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass

from providers.rules.glob_match import GlobMatch
from providers.rules.load import Rule
from providers.scoped_docs.activation import Activation, SessionDocs
from providers.scoped_docs.sections import Entry, always_entry, entry_for

RETIRE_AFTER = 3
"""Turns without a touch in a doc's scope before it retires to the index."""


@dataclass(frozen=True)
class Ranked:
    """The docs to show, in order, and the retired ones (named in the index only)."""

    entries: tuple[Entry, ...]
    retired: tuple[Entry, ...]


def rank(session: SessionDocs, rules: Mapping[str, Rule], always: Sequence[Rule] = ()) -> Ranked:
    """The order from scratch (:class:`Ranker` keeps it between turns)."""
    active = {path: a for path, a in session.active.items() if path in rules}
    placed = _in_hand(session, rules, active)
    for rule in always:  # already in the stated order
        placed.setdefault(rule.path, always_entry(rule))
    earlier, retired = _earlier_and_retired(session, active, placed)
    for _, path in earlier:
        placed[path] = _entry(session, rules[path], active[path])
    return Ranked(
        tuple(placed.values()),
        tuple(_entry(session, rules[path], active[path], retired=True) for path in retired),
    )


def _earlier_and_retired(
    session: SessionDocs, active: Mapping[str, Activation], placed: Container[str]
) -> tuple[list[tuple[_Key, str]], list[str]]:
    """The active docs not ``placed``: those needed within :data:`RETIRE_AFTER` turns, in
    their order (:func:`_key`), and the paths of those that retire, sorted."""
    earlier: list[tuple[_Key, str]] = []
    retired: list[str] = []
    for path, activation in active.items():
        if path in placed:
            continue
        last = session.last_turn.get(path, 0)
        if session.turn - last >= RETIRE_AFTER:
            retired.append(path)
        else:
            earlier.append((_key(last, activation), path))
    earlier.sort()
    retired.sort()
    return earlier, retired


_Key = tuple[int, tuple[int, ...], str]
"""An earlier doc's place: the turn that last needed it (latest first), then the most
specific, then by path."""


def _key(last: int, activation: Activation) -> _Key:
    return (-last, tuple(-x for x in activation.specificity), activation.rule)


def _in_hand(
    session: SessionDocs, rules: Mapping[str, Rule], active: Container[str]
) -> dict[str, Entry]:
    """The docs of the files in hand: round robin across them, each one's nearest first."""
    placed: dict[str, Entry] = {}
    per_file = [
        _nearest_first(path, session.in_hand.get(path, {}), active) for path in session.fresh
    ]
    depth = 0
    while any(depth < len(docs) for docs in per_file):
        for docs in per_file:
            if depth < len(docs):
                rule_path, touched, match = docs[depth]
                if rule_path not in placed:
                    activation = Activation(rule_path, touched, match)
                    placed[rule_path] = _entry(session, rules[rule_path], activation)
        depth += 1
    return placed


class Ranker:
    """:func:`rank`, kept between the turns of one session.

    A turn that touches new paths (``session.turn`` one on) moves only the docs in hand
    now or on the turn before, and the earlier docs that retire now; any other change
    (other rules or always-apply rules, a rule changed on disk: ``session.revision``)
    ranks from scratch. The same answer as :func:`rank` (a test compares them over
    random turns): the work per turn follows what changed, not how many docs are active.
    """

    def __init__(self) -> None:
        self._rules: Mapping[str, Rule] | None = None
        self._always: Sequence[Rule] = ()
        self._revision = -1
        self._turn = -1
        self._ranked = Ranked((), ())
        self._hand: dict[str, Entry] = {}
        self._always_entries: list[Entry] = []
        self._earlier_keys: list[_Key] = []
        self._earlier: list[Entry] = []
        """Active docs neither in hand nor always applied, by :func:`_key`."""
        self._key_of: dict[str, _Key] = {}
        self._retired_paths: list[str] = []
        self._retired: list[Entry] = []
        """Retired docs, by path."""

    def rank(
        self, session: SessionDocs, rules: Mapping[str, Rule], always: Sequence[Rule] = ()
    ) -> Ranked:
        """What :func:`rank` gives; ``rules`` and ``always`` are compared by identity (the
        provider keeps them per catalog version)."""
        same = (
            rules is self._rules and always is self._always and session.revision == self._revision
        )
        if same and session.turn == self._turn:
            return self._ranked
        if same and session.turn == self._turn + 1:
            self._advance(session, rules)
        else:
            self._start(session, rules, always)
        self._turn = session.turn
        hand = self._hand
        self._ranked = Ranked(
            (
                *hand.values(),
                *(e for e in self._always_entries if e.rule.path not in hand),
                *self._earlier,
            ),
            tuple(self._retired),
        )
        return self._ranked

    def _start(
        self, session: SessionDocs, rules: Mapping[str, Rule], always: Sequence[Rule]
    ) -> None:
        self._rules, self._always, self._revision = rules, always, session.revision
        active = {path: a for path, a in session.active.items() if path in rules}
        self._hand = _in_hand(session, rules, active)
        self._always_entries = [always_entry(rule) for rule in always]
        placed = {*self._hand, *(rule.path for rule in always)}
        earlier, retired = _earlier_and_retired(session, active, placed)
        self._earlier_keys = [key for key, _ in earlier]
        self._earlier = [_entry(session, rules[path], active[path]) for _, path in earlier]
        self._key_of = {path: key for key, path in earlier}
        self._retired_paths = retired
        self._retired = [
            _entry(session, rules[path], active[path], retired=True) for path in self._retired_paths
        ]

    def _advance(self, session: SessionDocs, rules: Mapping[str, Rule]) -> None:
        """One turn on: the docs in hand now leave the lists, those in hand on the turn
        before join them, and the earlier docs no turn has needed for long retire."""
        previous = self._hand
        rankable = {
            path
            for docs in session.in_hand.values()
            for path in docs
            if path in rules and path in session.active
        }
        self._hand = _in_hand(session, rules, rankable)
        for path in self._hand.keys() - previous.keys():
            self._remove(path)
        always = {rule.path for rule in self._always}
        for path in previous.keys() - self._hand.keys() - always:
            self._insert(session, rules, path)
        while self._earlier_keys and session.turn + self._earlier_keys[-1][0] >= RETIRE_AFTER:
            path = self._earlier_keys.pop()[2]
            self._earlier.pop()
            del self._key_of[path]
            self._retire(session, rules, path)

    def _remove(self, path: str) -> None:
        key = self._key_of.pop(path, None)
        if key is not None:
            i = bisect_left(self._earlier_keys, key)
            del self._earlier_keys[i], self._earlier[i]
            return
        i = bisect_left(self._retired_paths, path)
        if i < len(self._retired_paths) and self._retired_paths[i] == path:
            del self._retired_paths[i], self._retired[i]

    def _insert(self, session: SessionDocs, rules: Mapping[str, Rule], path: str) -> None:
        activation = session.active[path]
        last = session.last_turn.get(path, 0)
        if session.turn - last >= RETIRE_AFTER:
            self._retire(session, rules, path)
            return
        key = _key(last, activation)
        i = bisect_left(self._earlier_keys, key)
        self._earlier_keys.insert(i, key)
        self._earlier.insert(i, _entry(session, rules[path], activation))
        self._key_of[path] = key

    def _retire(self, session: SessionDocs, rules: Mapping[str, Rule], path: str) -> None:
        i = bisect_left(self._retired_paths, path)
        self._retired_paths.insert(i, path)
        self._retired.insert(i, _entry(session, rules[path], session.active[path], retired=True))


def _entry(
    session: SessionDocs, rule: Rule, activation: Activation, *, retired: bool = False
) -> Entry:
    """``entry_for`` (or the retired form), made once per doc version and reason: with a
    thousand active docs, formatting them anew was most of a turn."""
    key = (id(rule), activation, retired)  # the cached entry holds the rule: ids stay unique
    entry = session.entries.get(key)
    if entry is None:
        entry = _retired(rule, activation) if retired else entry_for(rule, activation)
        session.entries.put(key, entry)
    return entry


def _nearest_first(
    path: str, in_hand: Mapping[str, GlobMatch], active: Container[str]
) -> list[tuple[str, str, GlobMatch]]:
    """The active docs whose scope holds ``path``, most specific first, ties by path."""
    found = sorted(
        (tuple(-x for x in match.specificity), rule_path, match)
        for rule_path, match in in_hand.items()
        if rule_path in active
    )
    return [(rule_path, path, match) for _, rule_path, match in found]


def _retired(rule: Rule, activation: Activation) -> Entry:
    """Named only: the same words every turn it stays retired (no turn count that would
    change the index's bytes each turn)."""
    entry = entry_for(rule, activation)
    return Entry(rule, entry.why, f"{entry.brief}; not needed for {RETIRE_AFTER}+ turns")
