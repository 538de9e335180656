"""The rule files that always apply, found in every tool's rule directory.

Rules with no scope (Cursor ``alwaysApply: true``, ``.claude/rules`` and
``.clinerules`` files without ``paths``, Windsurf ``always_on``, Continue
always rules, Copilot ``applyTo: "**"``, ...) are loaded by the tool at the
start of every session, like ``AGENTS.md``: static context, so they belong in
the cached prefix beside the convention files rather than in a dynamic
section re-sent whenever it changes. Which files they are is the rules
layer's judgement (:mod:`providers.rules`); scoped docs leaves them here
(its ``always_apply = "leave"``) and keeps the conditional ones.

Each turn re-lists the rule directories (a ``stat`` per directory and per
rule file); a file is read again only when its key changed. Reading
thousands of them takes several turns: each reads until the turn's deadline
and :meth:`AlwaysRules.notes` says what is still unread.
"""

from __future__ import annotations

import os
from pathlib import Path

from providers.core.deadline import NEVER, Deadline
from providers.repository.sources import FileKey, file_keys
from providers.rules.catalog import MAX_RULE_FILES, Catalog
from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS
from providers.rules.order import precedence, stated_order

BUILTIN_DIRECTORIES = {directory: DIALECTS[name] for directory, name in BUILTIN_RULE_DIRS}


class AlwaysRules:
    """The always-on rule files under one repository root, in stated order."""

    def __init__(self) -> None:
        self._catalog: Catalog | None = None
        self._watched: tuple[str, ...] = ()
        """Every directory and file the last walk saw (absolute): their keys say whether
        anything could have changed (a file added or removed changes its directory's)."""
        self._keys: tuple[FileKey | None, ...] | None = None
        self._paths: tuple[str, ...] = ()

    def paths(self, root: Path, deadline: Deadline = NEVER) -> tuple[str, ...]:
        """Repo-relative paths of the rules that always apply, re-checked by ``stat``;
        those found by ``deadline`` when there are too many to read in one turn."""
        if self._catalog is None or self._catalog.root != root:
            self._catalog = Catalog(root, BUILTIN_DIRECTORIES, nested_names=(), warn=False)
            self._keys = None
        if self._keys is not None and file_keys(self._watched) == self._keys:
            return self._paths  # the warm turn: a stat per directory and file, nothing more
        watched = _walk(root)
        keys = file_keys(watched)
        catalog = self._catalog
        catalog.scan_rule_dirs(deadline=deadline)
        always = [path for path, rule in catalog.rules.items() if rule.always]
        self._paths = tuple(stated_order(always, precedence(BUILTIN_DIRECTORIES)))
        # Only a finished scan may be trusted while nothing changes on disk.
        self._watched, self._keys = (watched, keys) if not catalog.unread else ((), None)
        return self._paths

    @property
    def unread(self) -> int:
        """Rule files the last scan had no time for."""
        return self._catalog.unread if self._catalog is not None else 0

    def notes(self) -> list[str]:
        """What the rule directories hold that is not shown: over the file cap, unread."""
        if self._catalog is None:
            return []
        found = [
            f"[{problem.note}]"
            for path, problem in sorted(self._catalog.problems.items())
            if path.endswith("/") and "rule files" in problem.note
        ]
        if self._catalog.unread:
            found.append(
                f"[{self._catalog.unread:,} rule files not read yet: out of time this turn; "
                "the next turn goes on]"
            )
        return found


def _walk(root: Path) -> tuple[str, ...]:
    """The rule directories (present or not), their subdirectories and files."""
    base = os.fspath(root)
    found: list[str] = []
    for directory in BUILTIN_DIRECTORIES:
        top = os.path.join(base, directory)
        found.append(top)
        for current, subdirs, files in os.walk(top):
            subdirs.sort()
            found.extend(os.path.join(current, d) for d in subdirs)
            found.extend(os.path.join(current, name) for name in sorted(files))
            if len(found) > MAX_RULE_FILES:
                return tuple(found)
    return tuple(found)
