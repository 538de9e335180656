"""Rule discovery: which doc files exist, loaded once and re-read only when they change.

Two kinds of source. Rule directories (``.cursor/rules`` and friends) are
listed whole at discovery. Nested convention files (``src/auth/AGENTS.md``)
are looked up lazily, one directory at a time, for the directories above the
paths the agent touches; a directory never touched is never looked at.

Every refresh compares each file's :class:`FileKey` (a stat, no read) with the
one it was loaded at, so only files that really changed are read again. The
methods return the repo-relative paths whose rule changed (added, edited,
removed), which is what matching needs to redo.

Loading is bounded by the turn's :class:`~providers.core.deadline.Deadline`:
thousands of rule files take several turns' budgets to read, so a scan stops
at the deadline, :attr:`Catalog.unread` says how many listed files wait, and
the next scan goes on with them (what was read is kept).
"""

from __future__ import annotations

import itertools
import logging
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from providers.core.deadline import NEVER, Deadline
from providers.repository.paths import confine
from providers.repository.sources import FileKey, file_keys, stat_key
from providers.rules.dialects import Dialect
from providers.rules.expand import ImportPolicy
from providers.rules.load import (
    NESTED_IMPORTS,
    LoadResult,
    Problem,
    Reader,
    Rule,
    default_reader,
    load_colocated,
    load_nested,
    load_rule,
)
from providers.rules.nested_rules import load_in_subtree, owner

log = logging.getLogger(__name__)

MAX_RULE_FILES = 5_000
"""Files taken from one rule directory; more is a misconfiguration, not a rule set."""

_ABSENT = object()

_Load = Callable[[str], LoadResult]


class Catalog:
    """The rules and problems found under one repository root."""

    def __init__(
        self,
        root: Path,
        rule_dirs: Mapping[str, Dialect],
        nested_names: Sequence[str],
        reader: Reader = default_reader,
        colocated: Mapping[str, Dialect] | None = None,
        *,
        warn: bool = True,
        nested_rule_dirs: Mapping[str, Dialect] | None = None,
        imports: ImportPolicy = NESTED_IMPORTS,
    ) -> None:
        """``colocated``: rule file names that scope to their own directory, read in their
        dialect (Continue's ``rules.md``), looked up like nested files.
        ``nested_rule_dirs``: rule folders (``.claude/rules``) looked for the same way, in
        every folder below the root, applied to that folder's subtree."""
        self.root = root
        self.warn = warn
        """Log rules that cannot be applied (off where another provider reports them)."""
        self.rule_dirs = dict(rule_dirs)
        self.colocated = dict(colocated or {})
        self.nested_names = (*nested_names, *self.colocated)
        self.nested_rule_dirs = dict(nested_rule_dirs or {})
        self._reader = reader
        self._imports = imports
        """How nested convention files' ``@imports`` are read."""
        self.rules: dict[str, Rule] = {}
        self.problems: dict[str, Problem] = {}
        self._keys: dict[str, FileKey | None] = {}
        self._dir_files: dict[str, tuple[str, ...]] = {}
        self._nested_dirs: dict[str, tuple[str, ...]] = {}
        self._nested_prefixes: set[str] = set()
        self._unread: dict[str, tuple[str, ...]] = {}
        """Per rule directory, the listed files a scan had no time to check or load."""
        self.version = 0
        """Bumped whenever a rule or problem changes: the provider's cache key."""
        self._unwatched = _Unwatched(None)
        """What :meth:`recheck` learnt of its ``unwatched``."""

    # -- rule directories -------------------------------------------------

    @property
    def unread(self) -> int:
        """Listed rule files never loaded yet: the last scan ran out of time."""
        return sum(1 for files in self._unread.values() for f in files if f not in self._keys)

    def scan_rule_dirs(
        self, dirs: Iterable[str] | None = None, deadline: Deadline = NEVER
    ) -> set[str]:
        """(Re)list rule directories (all by default); load what is new or changed,
        until ``deadline`` (the rest waits in :attr:`unread` for the next scan)."""
        changed: set[str] = set()
        for directory in sorted(self.rule_dirs if dirs is None else dirs):
            dialect = self.rule_dirs[directory]
            files = self._list_rule_dir(directory, dialect)
            for gone in set(self._dir_files.get(directory, ())) - set(files):
                changed |= self._forget(gone)
            self._dir_files[directory] = files
            load = self._rule_loader(dialect)
            for done, rel in enumerate(files):
                if deadline.expired():
                    self._unread[directory] = files[done:]
                    break
                changed |= self._load_if_changed(rel, load)
            else:
                self._unread.pop(directory, None)
        return changed

    def resume(self, deadline: Deadline) -> set[str]:
        """Go on loading what earlier scans had no time for."""
        return self.scan_rule_dirs(sorted(self._unread), deadline) if self._unread else set()

    def _rule_loader(self, dialect: Dialect) -> _Load:
        return lambda rel: load_rule(self.root, rel, dialect, self._reader, warn=self.warn)

    def _list_rule_dir(self, directory: str, dialect: Dialect) -> tuple[str, ...]:
        top = self.root / directory
        dir_problem = f"{directory}/"
        if os.path.lexists(top) and confine(self.root, top) is None:
            note = f"{directory}/: not read (resolves outside the repository)"
            self._set_problem(dir_problem, Problem(dir_problem, note))
            return ()
        try:
            is_dir = stat.S_ISDIR(os.stat(top).st_mode)
        except PermissionError:
            note = f"{directory}/: not read (permission denied)"
            self._set_problem(dir_problem, Problem(dir_problem, note))
            return ()
        except OSError:
            is_dir = False
        if not is_dir:
            self._set_problem(dir_problem, None)
            return ()
        found: list[str] = []
        unreadable: list[str] = []
        notes: list[str] = []

        def skipped(error: OSError) -> None:
            unreadable.append(error.filename or str(error))

        start = len(os.fspath(self.root)) + 1
        for current, subdirs, filenames in os.walk(top, onerror=skipped, followlinks=False):
            if current == os.fspath(top):
                subdirs[:] = [d for d in subdirs if dialect.keeps(d)]
                if dialect.mode_dirs:
                    continue  # files beside rules/ in a tool's folder are its settings
            subdirs.sort()
            base = current[start:].replace(os.sep, "/")  # strings: 30,000 names a listing
            wanted = (f"{base}/{name}" for name in sorted(filenames) if dialect.accepts(name))
            found.extend(itertools.islice(wanted, MAX_RULE_FILES + 1 - len(found)))
            if len(found) > MAX_RULE_FILES:
                log.debug("%s holds over %d rule files; using the first", directory, MAX_RULE_FILES)
                found = found[:MAX_RULE_FILES]
                notes.append(
                    f"over {MAX_RULE_FILES:,} rule files, only the first {MAX_RULE_FILES:,} "
                    "(by path) read"
                )
                break
        if unreadable:
            where = ", ".join(
                Path(p).relative_to(self.root).as_posix() + "/" for p in sorted(unreadable)[:3]
            )
            notes.append(f"some directories not read ({where}: permission denied)")
        summary = f"{directory}/: {'; '.join(notes)}" if notes else None
        self._set_problem(dir_problem, Problem(dir_problem, summary) if summary else None)
        return tuple(found)

    def listed(self) -> tuple[str, ...]:
        """Every file found so far in the rule directories and the nested folders looked
        at: rules, problems, and the files that are not rules to inject alike."""
        found = [rel for files in self._dir_files.values() for rel in files]
        found += [rel for files in self._nested_dirs.values() for rel in files]
        return tuple(dict.fromkeys(found))

    # -- nested convention files ------------------------------------------

    def nested_rules(self, directory: str) -> list[Rule]:
        """The nested convention files in ``directory`` (repo-relative, not the root)."""
        if directory not in self._nested_dirs:
            self._lookup_nested(directory)
        return [self.rules[p] for p in self._nested_dirs[directory] if p in self.rules]

    def _lookup_nested(self, directory: str) -> set[str]:
        base = os.path.join(self.root, directory)  # strings: a path may be 2,000 names deep
        present = [
            f"{directory}/{name}"
            for name in self.nested_names
            if os.path.lexists(os.path.join(base, name))
        ]
        for folder, dialect in self.nested_rule_dirs.items():
            # A string check first: listing builds a Path, whose parsing costs the path's
            # depth, and a path 2,000 names deep has 2,000 directories to look in.
            if os.path.isdir(os.path.join(base, folder)):
                present.extend(self._list_rule_dir(f"{directory}/{folder}", dialect))
        changed: set[str] = set()
        for rel in set(self._nested_dirs.get(directory, ())) - set(present):
            changed |= self._forget(rel)
        if any(
            self._keys.get(rel, _ABSENT) != self._stat(rel) or self._imports_changed(rel)
            for rel in present
        ):
            # Duplicates are judged across the directory: reload all of it together.
            for rel in present:
                self._keys.pop(rel, None)
            for rel in present:
                changed |= self._load_if_changed(rel, self._nested)
        self._nested_dirs[directory] = tuple(present)
        # Each directory with its parents; a parent already known has all of its own.
        prefix = directory
        while prefix and prefix not in self._nested_prefixes:
            self._nested_prefixes.add(prefix)
            prefix = prefix.rpartition("/")[0]
        return changed

    def _nested(self, rel: str) -> LoadResult:
        found = owner(rel, tuple(self.nested_rule_dirs))
        if found is not None:
            base, folder = found
            return load_in_subtree(
                self.root, rel, self.nested_rule_dirs[folder], base, self._reader
            )
        dialect = self.colocated.get(PurePosixPath(rel).name)
        if dialect is not None:
            return load_colocated(self.root, rel, dialect, self._reader)
        loaded = load_nested(self.root, rel, self._reader, self._imports)
        if isinstance(loaded, Rule) and self._duplicate(loaded):
            log.debug("%s repeats another convention file in its directory; skipped", rel)
            return None
        return loaded

    def _duplicate(self, rule: Rule) -> bool:
        """Same text as an earlier name in the same directory (CLAUDE.md -> AGENTS.md)."""
        directory = rule.subtree or ""
        for name in self.nested_names:
            rel = f"{directory}/{name}"
            if rel == rule.path:
                return False
            other = self.rules.get(rel)
            if other is not None and other.text == rule.text:
                return True
        return False

    # -- change handling --------------------------------------------------

    def apply_changes(self, paths: Iterable[str], deadline: Deadline = NEVER) -> set[str]:
        """Refresh only what the watcher's changed absolute ``paths`` can affect."""
        rule_dirs: set[str] = set()
        nested_dirs: set[str] = set()
        importers = self._importers()
        for raw in paths:
            rel = self._relative(raw)
            if rel is None:
                continue
            rule_dirs.update(d for d in self.rule_dirs if _related(rel, d))
            nested_dirs.update(importers.get(raw, ()))
            parent = PurePosixPath(rel).parent.as_posix()
            if PurePosixPath(rel).name in self.nested_names and parent in self._nested_dirs:
                nested_dirs.add(parent)
            rule_folder = owner(rel, tuple(self.nested_rule_dirs), loosely=True)
            if rule_folder is not None and rule_folder[0] in self._nested_dirs:
                nested_dirs.add(rule_folder[0])
            if rel in self._nested_prefixes:
                nested_dirs.update(
                    d for d in self._nested_dirs if d == rel or d.startswith(rel + "/")
                )
        changed = self.scan_rule_dirs(rule_dirs, deadline) if rule_dirs else set()
        for directory in sorted(nested_dirs):
            changed |= self._lookup_nested(directory)
        return changed

    def recheck(self, unwatched: Callable[[str], bool]) -> set[str]:
        """Look again (by stat) at the nested folders no watch covers (``unwatched`` of
        their absolute path: a folder git ignores) and at those whose docs import from one.

        Each folder is asked about once for one ``unwatched`` (a turn then costs a lookup
        per folder, not a match), the importers once per catalog version."""
        known = self._unwatched
        if known.asked != unwatched:
            known = self._unwatched = _Unwatched(unwatched)
        for directory in self._nested_dirs.keys() - known.verdicts.keys():
            known.verdicts[directory] = unwatched(os.path.join(self.root, directory))
        if known.version != self.version:
            known.importing = set()
            for path, importers in self._importers().items():
                if unwatched(os.path.dirname(path)):
                    known.importing |= importers
            known.version = self.version
        folders = {d for d, out in known.verdicts.items() if out and d in self._nested_dirs}
        folders |= known.importing
        changed: set[str] = set()
        for directory in sorted(folders):
            changed |= self._lookup_nested(directory)
        return changed

    def refresh_all(self, deadline: Deadline = NEVER) -> set[str]:
        """Re-check everything (watcher overflow or not running): stats, reads only on change."""
        changed = self.scan_rule_dirs(deadline=deadline)
        for directory in sorted(self._nested_dirs):
            changed |= self._lookup_nested(directory)
        return changed

    def _relative(self, raw: str) -> str | None:
        try:
            rel = Path(raw).relative_to(self.root)
        except ValueError:
            return None
        return rel.as_posix() if rel.parts else None

    # -- loading ----------------------------------------------------------

    def _stat(self, rel: str) -> FileKey | None:
        """The file's key for the did-it-change check: one ``lstat`` for a regular file
        (tens of thousands of rule files are checked every turn without a watch); a
        symlink is followed, confined. Reading always confines (``read_text``)."""
        try:
            found = os.lstat(os.path.join(self.root, rel))
        except (OSError, ValueError):
            return None
        if stat.S_ISREG(found.st_mode):
            return FileKey.of(found)
        return stat_key(self.root, self.root / rel) if stat.S_ISLNK(found.st_mode) else None

    def _load_if_changed(self, rel: str, load: _Load) -> set[str]:
        key = self._stat(rel)
        if (
            rel in self._keys
            and key is not None
            and self._keys[rel] == key
            and not self._imports_changed(rel)
        ):
            return set()
        before = self.rules.get(rel, self.problems.get(rel, _ABSENT))
        self._store(rel, load(rel))
        self._keys[rel] = key
        after = self.rules.get(rel, self.problems.get(rel, _ABSENT))
        if after == before:
            return set()
        self.version += 1
        return {rel}

    def _imports_changed(self, rel: str) -> bool:
        rule = self.rules.get(rel)
        if rule is None or not rule.imported:
            return False
        paths = [path for path, _ in rule.imported]
        return file_keys(paths) != tuple(key for _, key in rule.imported)

    def _importers(self) -> dict[str, set[str]]:
        """Absolute path of each imported file -> the nested docs' directories importing it."""
        found: dict[str, set[str]] = {}
        for rule in self.rules.values():
            if rule.subtree is not None:
                for path, _ in rule.imported:
                    found.setdefault(path, set()).add(rule.subtree)
        return found

    def _set_problem(self, rel: str, problem: Problem | None) -> None:
        if self.problems.get(rel) == problem:
            return
        self.version += 1
        if problem is None:
            self.problems.pop(rel, None)
        else:
            self.problems[rel] = problem

    def _store(self, rel: str, loaded: LoadResult) -> None:
        self.rules.pop(rel, None)
        self.problems.pop(rel, None)
        if isinstance(loaded, Rule):
            self.rules[rel] = loaded
        elif isinstance(loaded, Problem):
            self.problems[rel] = loaded

    def _forget(self, rel: str) -> set[str]:
        known = rel in self.rules or rel in self.problems
        self.rules.pop(rel, None)
        self.problems.pop(rel, None)
        self._keys.pop(rel, None)
        if not known:
            return set()
        self.version += 1
        return {rel}


def _related(a: str, b: str) -> bool:
    """One path is the other or inside it (a change to ``.cursor`` touches ``.cursor/rules``)."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


@dataclass
class _Unwatched:
    """What :meth:`Catalog.recheck` learnt of one ``unwatched``: each nested folder's
    verdict, and the importers' folders as of catalog :attr:`~Catalog.version`."""

    asked: Callable[[str], bool] | None
    verdicts: dict[str, bool] = field(default_factory=dict)
    version: int = -1
    importing: set[str] = field(default_factory=set)
