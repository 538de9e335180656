"""The scoped docs provider: the rules that govern the files the agent touches, just in time.

1. discover (``catalog.py``): rule directories listed once, nested convention
   files looked up per touched directory; a watcher says what to re-read;
2. match (``activation.py``): only paths new this turn, against rules not yet
   active (``index.py`` prefilters); a doc once active stays active;
3. render (``layout.py``): one DYNAMIC section per doc, most specific first,
   fitted to the budget, with an index of what was left out and why.

A turn with no new path and no change on disk reads nothing and returns the
previous answer, so each doc's text stays byte-identical between turns.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.config import COMMON_ATTRIBUTES, non_negative_int, resolve_config
from providers.core.errors import invalid_request
from providers.core.identity import published_identity
from providers.core.paths import find_repo_root, normalise_touched
from providers.core.request import checked_working_directory
from providers.core.types import (
    AttrType,
    Capabilities,
    ConfigAttribute,
    ContextRequest,
    Contribution,
    Identity,
    Stability,
)
from providers.core.watch import ChangeWatcher
from providers.scoped_docs.activation import Session
from providers.scoped_docs.catalog import Catalog
from providers.scoped_docs.dialects import BUILTIN_RULE_DIRS, DIALECTS, Dialect
from providers.scoped_docs.index import RuleIndex
from providers.scoped_docs.layout import build_sections, order_entries
from providers.scoped_docs.repo_files import list_repo_files, unmatched
from providers.scoped_docs.rules import Reader, default_reader

log = logging.getLogger(__name__)

NAME = "scoped-docs"
DEFAULT_BUDGET = 2000
DEFAULT_NESTED_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
ALWAYS_APPLY_CHOICES = ("ours", "leave")
DIALECT_OFF = "off"
MAX_SESSIONS = 16
"""Sessions remembered at once (sub-agents share a process); the oldest is forgotten."""

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "nested_names",
        AttrType.LIST_STRING,
        "Convention file names looked for in every directory between a touched file "
        "and the repository root (the root itself belongs to repo-conventions).",
        default=DEFAULT_NESTED_NAMES,
    ),
    ConfigAttribute(
        "rule_dirs",
        AttrType.MAP_STRING,
        "Extra rule directories, repo-relative, mapped to their dialect: "
        f"{', '.join(DIALECTS)}; '{DIALECT_OFF}' turns a built-in directory off.",
        default={},
    ),
    ConfigAttribute(
        "always_apply",
        AttrType.STRING,
        "Rules that always apply (alwaysApply, no globs): 'ours' shows them first; "
        "'leave' leaves them to the repo conventions provider.",
        default="ours",
    ),
    ConfigAttribute(
        "max_docs", AttrType.NUMBER, "Most docs shown in full; the rest are only named."
    ),
    ConfigAttribute(
        "watch",
        AttrType.BOOL,
        "Watch rule files for changes; off, every turn re-checks them with stat calls.",
        default=True,
    ),
)

WatcherFactory = Callable[[Path], ChangeWatcher]


@dataclass(frozen=True)
class _Settings:
    nested_names: tuple[str, ...] = DEFAULT_NESTED_NAMES
    rule_dirs: Mapping[str, Dialect] = field(
        default_factory=lambda: {d: DIALECTS[n] for d, n in BUILTIN_RULE_DIRS}
    )
    always_apply: str = "ours"
    max_docs: int | None = None
    watch: bool = True


@dataclass
class _Turn:
    """What the previous answer was computed from."""

    key: tuple[object, ...]
    version: int
    contribution: Contribution


class _RootState:
    """Discovery for one repository root, shared by the sessions working in it."""

    def __init__(self, root: Path, settings: _Settings, reader: Reader) -> None:
        self.root = root
        self.catalog = Catalog(root, settings.rule_dirs, settings.nested_names, reader)
        self.watcher: ChangeWatcher | None = None
        self.index = RuleIndex(())
        self.sessions: OrderedDict[str, tuple[Session, _Turn | None]] = OrderedDict()
        self.files: tuple[str, ...] | None = None
        self.reported: set[tuple[str, str]] = set()

    def session(self, session_id: str) -> Session:
        if session_id in self.sessions:
            self.sessions.move_to_end(session_id)
            return self.sessions[session_id][0]
        session = Session()
        self.sessions[session_id] = (session, None)
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.popitem(last=False)
        return session


class ScopedDocsProvider:
    """Dynamic context: the nested docs and rule files that apply to touched files."""

    def __init__(
        self,
        *,
        watcher_factory: WatcherFactory | None = None,
        reader: Reader = default_reader,
    ) -> None:
        self._watcher_factory: WatcherFactory = watcher_factory or ChangeWatcher
        self._reader = reader
        self._settings = _Settings()
        self._state: _RootState | None = None
        self._lock = threading.Lock()

    def identity(self) -> Identity:
        return published_identity(NAME)

    def capabilities(self) -> Capabilities:
        return Capabilities(DEFAULT_BUDGET, Stability.DYNAMIC, SCHEMA)

    def configure(self, config: Mapping[str, Any]) -> None:
        self._settings = settings_from(config)
        with self._lock:
            self._drop_state()

    def close(self) -> None:
        """Stop the watcher thread (tests and shutdown)."""
        with self._lock:
            self._drop_state()

    def collect(self, request: ContextRequest, counter: TokenCounter) -> Contribution:
        working_directory = checked_working_directory(request)
        if request.token_budget == 0:
            return Contribution()
        model = request.model_target.id if request.model_target is not None else ""
        root = find_repo_root(working_directory)
        with self._lock:
            state = self._state_for(root)
            self._sync(state)
            session = state.session(request.session_id)
            _, previous = state.sessions[request.session_id]
            new = [
                entry
                for entry in request.files_touched
                if (str(working_directory), entry) not in session.raw_seen
            ]
            session.raw_seen.update((str(working_directory), entry) for entry in new)
            inside = normalise_touched(root, working_directory, new).inside if new else ()
            changed = session.refresh(state.catalog)
            changed |= session.touch(inside, state.catalog, state.index)
            key = (request.token_budget, model)
            version = state.catalog.version
            if (
                previous is not None
                and not changed
                and previous.key == key
                and previous.version == version
            ):
                return previous.contribution
            contribution = self._render(state, session, request.token_budget, counter)
            state.sessions[request.session_id] = (session, _Turn(key, version, contribution))
            return contribution

    # -- state ------------------------------------------------------------

    def _state_for(self, root: Path) -> _RootState:
        if self._state is not None and self._state.root == root:
            return self._state
        self._drop_state()
        state = _RootState(root, self._settings, self._reader)
        if self._settings.watch:
            watcher = self._watcher_factory(root)
            if watcher.start():
                state.watcher = watcher
            else:
                watcher.stop()
                log.warning("cannot watch %s; re-checking rule files every turn", root)
        changed = state.catalog.scan_rule_dirs()
        self._after_change(state, changed)
        self._state = state
        return state

    def _drop_state(self) -> None:
        if self._state is not None and self._state.watcher is not None:
            self._state.watcher.stop()
        self._state = None

    def _sync(self, state: _RootState) -> None:
        """Bring the catalog up to date: what the watcher saw, or everything by stat."""
        if state.watcher is None:
            changed = state.catalog.refresh_all()
        else:
            changes = state.watcher.drain()
            if changes.overflow:
                changed = state.catalog.refresh_all()
            elif changes.paths:
                changed = state.catalog.apply_changes(changes.paths)
            else:
                return
        if changed:
            self._after_change(state, changed)

    def _after_change(self, state: _RootState, changed: set[str]) -> None:
        state.index = RuleIndex([state.catalog.rules[p] for p in sorted(state.catalog.rules)])
        for session, _ in state.sessions.values():
            session.pending |= changed
        self._report_unmatched(state, changed)

    def _report_unmatched(self, state: _RootState, changed: Iterable[str]) -> None:
        """Warn once per rule and pattern when an inclusion matches no file in the repo."""
        for rel in sorted(changed):
            rule = state.catalog.rules.get(rel)
            if rule is None or rule.globs is None:
                continue
            by_written: dict[str, list[str]] = {}
            for written, one in rule.globs.positive_patterns():
                if (rel, written) not in state.reported:
                    by_written.setdefault(written, []).append(one)
            if not by_written:
                continue
            if state.files is None:
                state.files = list_repo_files(state.root)
            seen = {p for session, _ in state.sessions.values() for p in session.seen}
            for written, expanded in by_written.items():
                missing, cut = unmatched(expanded, state.files, seen)
                if cut:
                    log.debug("stopped checking patterns of %s: too many files", rel)
                    return
                if len(missing) == len(expanded):
                    state.reported.add((rel, written))
                    log.warning(
                        "rule %s: pattern %r matches no file in the repository", rel, written
                    )

    # -- render -----------------------------------------------------------

    def _render(
        self, state: _RootState, session: Session, budget: int, counter: TokenCounter
    ) -> Contribution:
        catalog = state.catalog
        always = (
            [r for r in catalog.rules.values() if r.always]
            if self._settings.always_apply == "ours"
            else []
        )
        entries = order_entries(always, session.active, catalog.rules)
        problems = [catalog.problems[p] for p in sorted(catalog.problems)]
        sections = build_sections(entries, problems, budget, counter, self._settings.max_docs)
        return Contribution(sections)


def settings_from(config: Mapping[str, Any]) -> _Settings:
    """Check the decoded provider block; raise ``invalid_request`` naming what is wrong."""
    values = resolve_config(SCHEMA, config)
    non_negative_int(values, "token_budget")
    max_docs = non_negative_int(values, "max_docs")
    names = tuple(values["nested_names"])
    for name in names:
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            raise invalid_request(f"nested_names: {name!r} is not a plain file name")
    always_apply = values["always_apply"]
    if always_apply not in ALWAYS_APPLY_CHOICES:
        raise invalid_request(
            f"always_apply must be one of {', '.join(ALWAYS_APPLY_CHOICES)} (got {always_apply!r})"
        )
    rule_dirs: dict[str, Dialect] = {d: DIALECTS[n] for d, n in BUILTIN_RULE_DIRS}
    for raw_dir, dialect in values["rule_dirs"].items():
        directory = _rule_dir(raw_dir)
        if dialect == DIALECT_OFF:
            rule_dirs.pop(directory, None)
        elif dialect in DIALECTS:
            rule_dirs[directory] = DIALECTS[dialect]
        else:
            raise invalid_request(
                f"rule_dirs[{raw_dir!r}]: unknown dialect {dialect!r} "
                f"(known: {', '.join([*DIALECTS, DIALECT_OFF])})"
            )
    return _Settings(names, rule_dirs, always_apply, max_docs, bool(values["watch"]))


def _rule_dir(raw: str) -> str:
    path = PurePosixPath(raw.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts or path.as_posix() == ".":
        raise invalid_request(
            f"rule_dirs: {raw!r} must be a directory inside the repository, relative to its root"
        )
    return path.as_posix()
