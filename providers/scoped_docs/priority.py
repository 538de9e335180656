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
same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    active = {path: a for path, a in session.active.items() if path in rules}
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
    for rule in always:  # already in the stated order
        placed.setdefault(rule.path, always_entry(rule))
    earlier: list[tuple[int, tuple[int, ...], str]] = []
    retired: list[Entry] = []
    for path, activation in active.items():
        if path in placed:
            continue
        last = session.last_turn.get(path, 0)
        if session.turn - last >= RETIRE_AFTER:
            retired.append(_entry(session, rules[path], activation, retired=True))
        else:
            earlier.append((-last, tuple(-x for x in activation.specificity), path))
    for _, _, path in sorted(earlier):
        placed[path] = _entry(session, rules[path], active[path])
    return Ranked(tuple(placed.values()), tuple(sorted(retired, key=lambda e: e.rule.path)))


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
    path: str, in_hand: Mapping[str, GlobMatch], active: Mapping[str, Activation]
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
