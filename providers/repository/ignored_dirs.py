"""Which directories of a work tree a file watch may leave out: what git ignores.

The watch layer asks this (it offers ``watch.Ignored``) for each directory it
meets, so the rules are ours, never a git process per directory:
:class:`~providers.repository.ignore.IgnoreRules` (the repository's ``.gitignore``
files, ``info/exclude`` and the global excludes file, checked against git),
rooted at the work tree's top. Never left out, whatever the rules say:

- ``.git`` and everything in it (a nested repository's too): git's own state;
- the directories holding a tracked file that the rules match (``git add -f``, or
  ignored after it was added: git still shows its changes), and their ancestors,
  from one ``git ls-files`` when the rules are read;
- the ``keep`` directories a provider reads whatever git ignores (the scoped
  docs' rule directories), everything in them and their ancestors;
- anything outside the root (a linked worktree's git directory).

A tracked file added into an ignored directory later (``git add -f``) is
watched once the rules are read again (an ignore file edited); until then a
change to it is seen only by the checks that run without a watch.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

from providers.repository.excludes import global_excludes
from providers.repository.gitexec import GitError, GitRunner
from providers.repository.ignore import GITIGNORE, IgnoreRules
from providers.repository.layout import git_dir, info_exclude
from providers.repository.listing import tracked_ignored
from providers.repository.paths import ancestors
from providers.repository.sources import FileKey, file_keys

log = logging.getLogger(__name__)

GIT_TIMEOUT_S = 10.0


class IgnoredDirs:
    """git's ignored directories under ``root``, read once; make a new one when
    :meth:`stale` (or a :meth:`rule_file` changed)."""

    def __init__(
        self, root: Path, runner: GitRunner | None = None, *, keep: Iterable[str] = ()
    ) -> None:
        runner = runner if runner is not None else GitRunner(timeout=GIT_TIMEOUT_S)
        self._prefix = os.path.join(root, "")
        gitdir = git_dir(root)
        self._info_exclude = info_exclude(gitdir) if gitdir is not None else None
        self._global = global_excludes(runner, root)
        self._outside: tuple[Path, ...] = tuple(
            path for path in (self._info_exclude, self._global) if path is not None
        )
        self._keys: tuple[FileKey | None, ...] = file_keys(self._outside)
        self._rules = IgnoreRules(
            root, info_exclude=self._info_exclude, global_excludes=self._global
        )
        self._keep = tuple(k.strip("/") for k in keep if k.strip("/"))
        self._ancestors: set[str] = set()
        for kept in self._keep:
            self._ancestors.update(ancestors(kept + "/"))
        self.everything = False
        """True when git could not say which tracked files are ignored: nothing is left
        out (a change to one of them must not go unseen)."""
        if gitdir is not None:
            try:
                for path in tracked_ignored(runner, root):
                    self._ancestors.update(ancestors(path))
            except GitError as exc:
                log.debug("cannot list ignored tracked files in %s: %s", root, exc)
                self.everything = True

    def skip(self, directory: str) -> bool:
        """Whether the absolute ``directory``, and everything below it, goes unwatched."""
        if self.everything or not directory.startswith(self._prefix):
            return False
        rel = directory[len(self._prefix) :].replace(os.sep, "/")
        if not rel or rel in self._ancestors or "/.git/" in f"/{rel}/":
            return False
        if any(rel == kept or rel.startswith(kept + "/") for kept in self._keep):
            return False
        return self._rules.excluded_path(rel, True)

    def rule_file(self, path: str) -> bool:
        """Whether a change at ``path`` may change what :meth:`skip` says."""
        if self._info_exclude is not None and path == os.fspath(self._info_exclude):
            return True
        return path.startswith(self._prefix) and os.path.basename(path) == GITIGNORE

    def stale(self) -> bool:
        """Whether ``info/exclude`` or the global excludes file changed since the rules
        were read (a linked worktree's ``info/exclude`` lies outside its tree)."""
        return file_keys(self._outside) != self._keys
