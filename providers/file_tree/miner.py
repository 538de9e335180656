"""Mining the repository's history for the ranking, off the answer path.

Once per new HEAD, after an answer was sent (``answer_sent``), one bounded
``git log`` runs in a thread of its own; a turn uses whatever history is
ready and never waits for it. When HEAD moved forward, only the new commits
are asked for (``git log old..new``) and put in front of what is known; a
HEAD that moved elsewhere (a rebase, a checkout) is mined afresh.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from providers.file_tree.history import LOG_ARGS, MAX_COMMITS, History, build, parse_commits
from providers.repository.gitexec import GitError, GitRunner
from providers.repository.layout import git_dir, head_commit

log = logging.getLogger(__name__)

MAX_LOG_BYTES = 16 * 1024 * 1024
"""More output than this is cut: the newest commits are what matters."""


class HistoryMiner:
    """The history of one repository root, mined in the background."""

    def __init__(self, root: Path, runner: GitRunner) -> None:
        self._root = root
        self._runner = runner
        self._lock = threading.Lock()
        self._history: History | None = None
        self._commits: list[tuple[str, ...]] = []
        self._head: str | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self.version = 0
        """Moves on whenever a new history is ready (answers made before are stale)."""

    @property
    def history(self) -> History | None:
        """What is ready now (None before the first mining finished, or outside git)."""
        return self._history

    def refresh(self) -> None:
        """Start mining if HEAD moved since the last mining (and none is running)."""
        gitdir = git_dir(self._root)
        if gitdir is None or self._closed:
            return
        head = head_commit(gitdir)
        with self._lock:
            busy = self._thread is not None and self._thread.is_alive()
            if busy or (head is not None and head == self._head):
                return
            self._thread = threading.Thread(
                target=self._mine, args=(head,), name="file-tree-history", daemon=True
            )
            self._thread.start()

    def close(self) -> None:
        self._closed = True

    def _mine(self, head: str | None) -> None:
        known, old = self._commits, self._head
        try:
            if old is not None and known and head is not None and self._descends(old, head):
                new = self._log(f"{old}..{head}")
            else:
                known = []  # first mining, or HEAD moved elsewhere (a rebase, a checkout)
                new = self._log(None)
        except GitError as exc:
            log.debug("no history for the file tree: %s", exc)
            return
        if self._closed:
            return
        commits = (new + known)[:MAX_COMMITS]
        history = build(commits)
        with self._lock:
            self._commits, self._head, self._history = commits, head, history
            self.version += 1

    def _descends(self, old: str, head: str) -> bool:
        code, _, _ = self._runner.run(
            self._root, ["merge-base", "--is-ancestor", old, head], ok_codes=None
        )
        return code == 0

    def _log(self, revisions: str | None) -> list[tuple[str, ...]]:
        """Commits newest first (``revisions`` as git takes them; HEAD by default)."""
        args = [*LOG_ARGS[:-2], f"--max-count={MAX_COMMITS}", revisions or "HEAD", "--"]
        _, out, _ = self._runner.run(self._root, args)
        return parse_commits(out, limit=MAX_LOG_BYTES)
