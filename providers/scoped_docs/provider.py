"""The scoped docs provider: the rules that govern the files the agent touches, just in time.

1. discover (``providers.rules.catalog``): rule directories listed once, nested convention
   files looked up per touched directory; a watcher says what to re-read;
2. match (``activation.py``): only paths new this turn, against rules not yet
   active (``index.py`` prefilters); a doc once active stays active;
3. fit (``sections.py``): one DYNAMIC section per doc, most specific first,
   fitted to the budget, with an index of what was left out and why.

A turn with no new path and no change on disk reads nothing and returns the
previous answer, so each doc's text stays byte-identical between turns.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.deadline import Deadline
from providers.core.identity import published_identity
from providers.core.lru import LruMap
from providers.core.provider import unless_busy
from providers.core.render_tree import Node, markdown_section
from providers.core.request import Turn
from providers.core.types import Capabilities, Contribution, Identity, Section, Stability
from providers.repository.ignored_dirs import IgnoredDirs
from providers.repository.layout import RepoRoots
from providers.repository.paths import normalise_touched
from providers.rules.catalog import Catalog
from providers.rules.conventions import cwd_chain
from providers.rules.load import CONTINUE_COLOCATED, Problem, Reader, Rule, default_reader
from providers.rules.nested_rules import NESTED_RULE_DIRS
from providers.rules.order import in_builtin_rule_dir, precedence, stated_order
from providers.scoped_docs.activation import SessionDocs
from providers.scoped_docs.copies import ConventionCopies
from providers.scoped_docs.index import RuleIndex
from providers.scoped_docs.pattern_check import PatternCheck
from providers.scoped_docs.priority import Ranker
from providers.scoped_docs.sections import (
    UNFINISHED_HEADER,
    Listed,
    broken,
    build_sections,
    on_request,
    unmatched,
)
from providers.scoped_docs.settings import (
    DEFAULT_TOKEN_BUDGET,
    NAME,
    SCHEMA,
    Settings,
    settings_from,
)
from providers.scoped_docs.skills import SKILLS_SHARE, ScopedSkills, SessionSkills, skills_section
from providers.watch import WatcherFactory, WatchLifecycle, default_watcher

log = logging.getLogger(__name__)

CONTINUE_RULES = ".continue/rules"
"""With Continue's rule directory read, so are its colocated ``rules.md`` files."""

_PATTERN_CHUNK = 100
"""Rules whose patterns are checked between two looks at the deadline."""

MAX_SESSIONS = 16
"""Sessions remembered at once (sub-agents share a process); the least recently used is
forgotten (:class:`~providers.core.lru.LruMap`)."""


@dataclass
class _Turn:
    """What the previous answer was computed from."""

    key: tuple[object, ...]
    version: tuple[int, ...]
    """The catalog's version, what repo conventions sends (its copies' version), the
    skills' version."""
    contribution: Contribution


@dataclass
class _Session:
    """One session's docs and the answer it was last given."""

    docs: SessionDocs
    last: _Turn | None = None
    skills: SessionSkills = field(default_factory=SessionSkills)
    ranker: Ranker = field(default_factory=Ranker)


@dataclass(frozen=True)
class _Shown:
    """What the docs answer draws from the catalog, as of one catalog and copies version:
    the rules this provider shows, its always-apply ones, and the index lines that do
    not depend on the session."""

    version: tuple[int, int]
    rules: Mapping[str, Rule]
    always: Sequence[Rule]
    problems: Sequence[Problem]
    listed: Sequence[Listed]


class IgnoredReader:
    """Reads the ignore rules for the watcher (on its thread) and keeps the latest for
    :meth:`Catalog.recheck`: a nested doc where git ignores gets no watch."""

    def __init__(self, root: Path, keep: tuple[str, ...]) -> None:
        self.root = root
        self.keep = keep
        self.state: _RootState | None = None

    def __call__(self) -> IgnoredDirs:
        ignored = IgnoredDirs(self.root, keep=self.keep)
        if self.state is not None:
            self.state.ignored = ignored
        return ignored


class _RootState:
    """Discovery for one repository root, shared by the sessions working in it."""

    def __init__(
        self, root: Path, settings: Settings, reader: Reader, watch: WatchLifecycle
    ) -> None:
        self.root = root
        continue_rules = settings.rule_dirs.get(CONTINUE_RULES)
        colocated = {CONTINUE_COLOCATED: continue_rules} if continue_rules is not None else {}
        nested = {d: settings.rule_dirs[d] for d, _ in NESTED_RULE_DIRS if d in settings.rule_dirs}
        self.catalog = Catalog(
            root,
            settings.rule_dirs,
            settings.nested_names,
            reader,
            colocated=colocated,
            nested_rule_dirs=nested,
            imports=settings.imports,
        )
        self.watch = watch
        self.ignored: IgnoredDirs | None = None
        """The ignore rules the watcher last read: what it leaves unwatched."""
        self.index = RuleIndex(())
        self.sessions: LruMap[str, _Session] = LruMap(MAX_SESSIONS)
        self.patterns = PatternCheck(root)
        self.copies = ConventionCopies(settings.imports)
        self.skills = ScopedSkills(root)
        self.unmatched: list[tuple[str, str]] = []
        """(rule, pattern) pairs that match no file in the repository, for the index."""
        self.unchecked: set[str] = set()
        """Rules changed on a turn with no time left to check their patterns."""
        self.shown: _Shown | None = None

    def session(self, session_id: str) -> _Session:
        return self.sessions.get_or_add(session_id, lambda: _Session(SessionDocs()))


class ScopedDocsProvider:
    """Dynamic context: the nested docs and rule files that apply to touched files."""

    def __init__(
        self,
        *,
        watcher_factory: WatcherFactory | None = None,
        reader: Reader = default_reader,
        watch_start_timeout: float = 0.0,
    ) -> None:
        """``watch_start_timeout``: how long the first turn may wait for the watch to be in
        place (0: not at all; until it is, each turn re-checks rule files by stat)."""
        self._watcher_factory: WatcherFactory = watcher_factory or default_watcher
        self._watch_start_timeout = watch_start_timeout
        self._reader = reader
        self._settings = settings_from({})  # an empty provider block: the schema's defaults
        self._state: _RootState | None = None
        self._lock = threading.Lock()
        self._roots = RepoRoots()

    def identity(self) -> Identity:
        return published_identity(NAME)

    def capabilities(self) -> Capabilities:
        return Capabilities(DEFAULT_TOKEN_BUDGET, Stability.DYNAMIC, SCHEMA)

    def configure(self, config: Mapping[str, Any]) -> None:
        self._settings = settings_from(config)
        with self._lock:
            self._drop_state()

    def render(self, label: str, text: str) -> Node:
        """Render: a scoped doc, or the index, as a collapsed section of markdown."""
        return markdown_section(label, text)

    def close(self) -> None:
        """Stop the watcher thread (tests and shutdown)."""
        with self._lock:
            self._drop_state()

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        working_directory = turn.working_directory
        root = self._roots.root(working_directory)
        deadline = turn.deadline
        with self._lock:
            # Half the time at most for reading rule files: the files in hand come next.
            scan = deadline.part(0.5)
            state = self._state_for(root, scan)
            self._sync(state, scan)
            remembered = state.session(turn.session_id)
            session, previous = remembered.docs, remembered.last
            new = session.new_entries(str(working_directory), turn.files_touched)
            inside = normalise_touched(root, working_directory, new).inside if new else ()
            changed = session.refresh(state.catalog)
            sent_elsewhere = frozenset(cwd_chain(root, working_directory))
            changed |= session.touch(inside, state.catalog, state.index, sent_elsewhere, deadline)
            changed |= state.skills.refresh(remembered.skills)
            changed |= state.skills.touch(remembered.skills, inside, sent_elsewhere)
            state.copies.update(root, working_directory)
            key = (turn.token_budget, turn.model_id, counter.epoch)
            version = (state.catalog.version, state.copies.version, state.skills.version)
            if (
                previous is not None
                and not changed
                and previous.key == key
                and previous.version == version
            ):
                return previous.contribution
            contribution = self._sections(state, remembered, turn.token_budget, counter)
            remembered.last = _Turn(key, version, contribution)
            state.watch.answer_computed()
            return contribution

    # -- state ------------------------------------------------------------

    def _state_for(self, root: Path, deadline: Deadline) -> _RootState:
        if self._state is not None and self._state.root == root:
            return self._state
        self._drop_state()
        factory = self._watcher_factory if self._settings.watch else None
        keep = tuple(self._settings.rule_dirs)  # read whether git ignores them or not
        ignored = IgnoredReader(root, keep)
        watch = WatchLifecycle(
            (root,), factory, start_timeout=self._watch_start_timeout, ignored=ignored
        )
        state = _RootState(root, self._settings, self._reader, watch)
        ignored.state = state
        changed = state.catalog.scan_rule_dirs(deadline=deadline)
        self._after_change(state, changed, deadline)
        self._state = state
        return state

    def answer_sent(self) -> None:
        """A turn's answer is out: the watch may start. Setting up a recursive watch
        holds the GIL while it walks the tree (seconds on a large repository), which
        must not stall that answer."""
        unless_busy(self._lock, self._answer_sent)

    def _answer_sent(self) -> None:
        if self._state is not None:
            self._state.watch.answer_sent()

    def _drop_state(self) -> None:
        if self._state is not None:
            self._state.watch.stop()
        self._state = None

    def _sync(self, state: _RootState, deadline: Deadline) -> None:
        """Bring the catalog up to date: what the watcher saw, or everything by stat
        (until the watch is in place, on the turn it gets there, and without one);
        then go on reading what earlier turns had no time for."""
        report = state.watch.poll()
        changes = report.changes
        if not report.complete or changes.overflow:
            changed = state.catalog.refresh_all(deadline)  # what earlier turns left, too
        else:
            changed = (
                state.catalog.apply_changes(changes.paths, deadline) if changes.paths else set()
            )
            if state.ignored is not None:  # nested docs the agent reads where git ignores
                changed |= state.catalog.recheck(state.ignored.skip)
            changed |= state.catalog.resume(deadline)
        if changed:
            self._after_change(state, changed, deadline)
        else:
            self._check_patterns(state, deadline)

    def _after_change(self, state: _RootState, changed: set[str], deadline: Deadline) -> None:
        rules = [state.catalog.rules[p] for p in sorted(state.catalog.rules)]
        state.index = RuleIndex(rules, previous=state.index)
        for remembered in state.sessions.values():
            remembered.docs.pending |= changed
        state.unchecked |= changed
        self._check_patterns(state, deadline)

    def _check_patterns(self, state: _RootState, deadline: Deadline) -> None:
        """Check the patterns of changed rules while the turn has time, a hundred rules at
        a time (the check lists the repository and tests up to a million paths a run);
        what is left waits for a later turn."""
        waiting = sorted(state.unchecked)
        while waiting and not deadline.expired():
            chunk, waiting = waiting[:_PATTERN_CHUNK], waiting[_PATTERN_CHUNK:]
            self._report_unmatched(state, chunk)
        state.unchecked = set(waiting)

    def _report_unmatched(self, state: _RootState, changed: Iterable[str]) -> None:
        """Warn once per rule and pattern when an inclusion matches no file in the repo."""
        rules = [state.catalog.rules[p] for p in sorted(changed) if p in state.catalog.rules]
        rules = [r for r in rules if r.globs is not None]
        if rules:
            seen = {p for remembered in state.sessions.values() for p in remembered.docs.seen}
            found = state.patterns.check(rules, seen)
            checked = {r.path for r in rules}
            kept = [(rule, p) for rule, p in state.unmatched if rule not in checked]
            state.unmatched = sorted({*kept, *found})

    # -- sections ---------------------------------------------------------

    def _always(self, rules: Mapping[str, Rule]) -> list[Rule]:
        """The always-apply rules shown here, in the stated order. With ``leave``, those in
        the tools' own rule directories are repo conventions' (it reads the same ones);
        an extra configured directory's stay here, so nothing is lost."""
        mine = [
            path
            for path, rule in rules.items()
            if rule.always
            and (self._settings.always_apply == "ours" or not in_builtin_rule_dir(path))
        ]
        order = stated_order(mine, precedence(self._settings.rule_dirs))
        return [rules[path] for path in order]

    def _sections(
        self, state: _RootState, remembered: _Session, budget: int, counter: TokenCounter
    ) -> Contribution:
        skills = remembered.skills
        listing = skills_section(skills, budget // SKILLS_SHARE, counter)
        remaining = budget - (listing.tokens if listing else 0)
        docs = self._docs(state, remembered.docs, remembered.ranker, remaining, counter)
        spare = budget - sum(s.tokens for s in docs)
        if listing is not None and listing.truncated and spare > listing.tokens:
            listing = skills_section(skills, spare, counter) or listing
        return Contribution((*docs, listing) if listing is not None else docs)

    def _shown(self, state: _RootState) -> _Shown:
        """``state.shown``, made again when the catalog or what repo conventions sends
        changed (a turn that only touched files finds it as it was)."""
        catalog = state.catalog
        version = (catalog.version, state.copies.version)
        if state.shown is None or state.shown.version != version:
            rules = {p: r for p, r in catalog.rules.items() if not state.copies.holds(r)}
            listed = [broken(rules[p]) for p in sorted(rules) if rules[p].broken]
            listed += [on_request(rules[p]) for p in sorted(rules) if rules[p].on_request]
            problems = [catalog.problems[p] for p in sorted(catalog.problems)]
            state.shown = _Shown(version, rules, self._always(rules), problems, listed)
        return state.shown

    def _docs(
        self,
        state: _RootState,
        session: SessionDocs,
        ranker: Ranker,
        budget: int,
        counter: TokenCounter,
    ) -> tuple[Section, ...]:
        shown = self._shown(state)
        ranked = ranker.rank(session, shown.rules, shown.always)
        listed = list(shown.listed)
        for rule, pattern in state.unmatched:  # not once the pattern made the doc active
            fired = session.active.get(rule)
            if fired is None or fired.match.written != pattern:
                listed.append(unmatched(rule, pattern))
        return build_sections(
            ranked.entries,
            shown.problems,
            budget,
            counter,
            self._settings.max_docs,
            ranked.retired,
            listed,
            _unfinished(state.catalog.unread, len(session.backlog)),
        )


def _unfinished(unread: int, backlog: int) -> list[Listed]:
    """Index lines for the work this turn had no time for."""
    found = []
    if unread:
        found.append(Listed(UNFINISHED_HEADER, f"- {unread:,} rule files not read yet"))
    if backlog:
        found.append(Listed(UNFINISHED_HEADER, f"- {backlog:,} files touched not matched yet"))
    return found
