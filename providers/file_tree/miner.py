"""Mining the repository's history for the ranking: what is cheap before the first answer,
the rest in the background, kept between sessions.

When a root is first seen (:meth:`HistoryMiner.start`, before its listing), one thread:

1. loads the history an earlier session kept for HEAD (:mod:`history_cache`); or
2. one kept for an ancestor of HEAD, then extends it with only the commits since
   (``git log old..HEAD``); or
3. with nothing kept, mines the newest :data:`FIRST_COMMITS` commits (at most
   :data:`FIRST_LOG_BYTES` of log).

The first answer waits for that (:meth:`wait_first`) until :data:`FIRST_WAIT_S` after it
started, which overlaps the listing, and ranks with whatever is ready by then; past
that time the work yields to turns like any other.

After an answer was sent (:meth:`refresh`), once per new HEAD, the full
:data:`MAX_COMMITS` are mined in the background (the rest of a first slice, or only the
commits since when HEAD moved forward; a HEAD that moved elsewhere, a rebase or a
checkout, is looked up in the cache, else mined afresh) and kept in the cache. A turn
uses whatever history is ready and never waits for this.

Background work yields to turns (issue 24): building calls :meth:`HistoryMiner._pause`
every few hundred paths, which, every :data:`SLICE_S` of work, lets go of the interpreter
(a turn's thread waiting for it takes it) and waits while a turn holds ``turns`` (the
provider's lock). The first answer's work, which that answer waits for, never pauses.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from providers.file_tree.history import LOG_ARGS, MAX_COMMITS, History, build, parse_commits
from providers.file_tree.history_cache import MAX_PER_REPOSITORY, HistoryCache
from providers.file_tree.memory import return_free_memory
from providers.repository.gitexec import GitError, GitRunner
from providers.repository.layout import git_dir, head_commit

log = logging.getLogger(__name__)

MAX_LOG_BYTES = 16 * 1024 * 1024
"""More output than this is cut: the newest commits are what matters."""
_TRIM_AFTER_PATHS = 20_000
"""A history of this many paths leaves megabytes free once built (the log, its decoded
paths): handed back (:func:`memory.return_free_memory`)."""

FIRST_COMMITS = 500
"""Commits mined before a first answer when no history was kept (what that costs and
gives: ``benchmarks/results/orientation.md``)."""
FIRST_LOG_BYTES = 1024 * 1024
"""At most this much log before a first answer (a commit importing 100,000 files is 4 MB)."""
FIRST_WAIT_S = 0.25
"""The longest a first answer waits for its history, counted from when mining started."""
SLICE_S = 0.002
"""Background work between two hand-overs of the interpreter."""
_HAND_OVER_S = 0.0002
_TURN_POLL_S = 0.002


class TurnLock(Protocol):
    """What the miner asks of the provider's lock: whether a turn holds it."""

    def locked(self) -> bool: ...


class _Stopped(Exception):
    """The miner was closed: background work ends at its next pause."""


class HistoryMiner:
    """The history of one repository root: a first part before the first answer, the rest
    in the background; ``cache`` keeps it between sessions, ``turns`` is held by turns.

    ``head`` says which commit is HEAD (default: the root's own, read from its git
    directory; the benchmark asks for past commits of a bare mirror); ``first_commits``
    is how many commits a first answer waits for without a cache.
    """

    def __init__(
        self,
        root: Path,
        runner: GitRunner,
        cache: HistoryCache | None = None,
        turns: TurnLock | None = None,
        *,
        head: Callable[[], str | None] | None = None,
        first_commits: int = FIRST_COMMITS,
    ) -> None:
        self._root = root
        self._runner = runner
        self._cache = cache if cache is not None else HistoryCache(None)
        self._turns = turns
        self._current_head = head if head is not None else self._own_head
        self._first_commits = first_commits
        self._lock = threading.Lock()
        self._history: History | None = None
        self._head: str | None = None
        """The HEAD the history was mined at."""
        self._complete = False
        """Whether the history holds all of MAX_COMMITS (or all there is) up to ``_head``."""
        self._thread: threading.Thread | None = None
        self._answered = False
        self._started: float | None = None
        self._first_done = threading.Event()
        self._urgent = False
        self._closed = False
        self._since = 0.0
        self.version = 0
        """Moves on whenever a new history is ready (answers made before are stale)."""

    @property
    def history(self) -> History | None:
        """What is ready now (None before any, or outside git)."""
        return self._history

    def start(self) -> None:
        """Start the first mining (the first call only): before listing, so the two overlap."""
        if self._started is not None or self._closed:
            return
        self._started = time.monotonic()
        head = self._current_head()
        if head is None:
            self._first_done.set()
            return
        self._urgent = True  # until the first answer stops waiting, FIRST_WAIT_S at most
        with self._lock:
            self._spawn(lambda: self._first(head))

    def wait_first(self, cap: float | None = FIRST_WAIT_S) -> None:
        """Wait for the first mining, until ``cap`` seconds after it started (None: until
        it is done); from then on it yields to turns."""
        if self._started is not None and not self._first_done.is_set():
            if cap is None:
                self._first_done.wait()
            elif (remaining := self._started + cap - time.monotonic()) > 0:
                self._first_done.wait(remaining)
        self._urgent = False

    def refresh(self) -> None:
        """An answer was sent: mine the rest if HEAD moved or the history is partial (in
        the background; if mining runs, it goes on with this when it ends)."""
        if self._closed or self._started is None:
            return
        head = self._current_head()
        with self._lock:
            self._answered = True
            if self._thread is None and head is not None and not self._done_at(head):
                self._spawn(lambda: self._mine(head))

    def close(self) -> None:
        self._closed = True

    def _spawn(self, work: Callable[[], None]) -> None:
        """Run ``work`` in the mining thread (the caller holds ``_lock``)."""

        def run() -> None:
            try:
                work()
                head = self._current_head()
                with self._lock:
                    if not (self._answered and head is not None and not self._done_at(head)):
                        self._thread = None
                        return
                self._mine(head)  # an answer went out meanwhile: on with the rest
            except _Stopped:
                pass
            except GitError as exc:
                log.debug("no history for the file tree: %s", exc)
            finally:
                self._first_done.set()
                with self._lock:
                    self._thread = None

        self._thread = threading.Thread(target=run, name="file-tree-history", daemon=True)
        self._thread.start()

    def _done_at(self, head: str) -> bool:
        return head == self._head and self._complete

    def _own_head(self) -> str | None:
        gitdir = git_dir(self._root)
        return head_commit(gitdir) if gitdir is not None else None

    def _first(self, head: str) -> None:
        try:
            if self._from_cache(head):
                return
            count = self._first_commits
            commits, complete = self._log(head, count=count, limit=FIRST_LOG_BYTES)
            history = build(commits, self._pause)
            self._publish(head, history, complete=complete)
            if complete:
                self._cache.store(self._root, head, history)
            _trim_after(history)
        finally:
            self._first_done.set()

    def _mine(self, head: str) -> None:
        with self._lock:
            history, old, complete = self._history, self._head, self._complete
        if history is not None and old == head and not complete:  # the rest of a first slice
            known = history.changed()
            more, _ = self._log(head, count=MAX_COMMITS - len(known), skip=len(known))
            self._finish(head, known + more)
        elif history is not None and old is not None and complete and self._descends(old, head):
            self._extend(old, history, head)
        elif not self._from_cache(head):
            self._finish(head, self._log(head)[0])

    def _from_cache(self, head: str) -> bool:
        """Whether a history kept for ``head``, or for an ancestor of it (then extended),
        was found."""
        kept = self._cache.load(self._root, head)
        if kept is not None:
            self._publish(head, kept, complete=True)
            return True
        for old in self._cache.heads(self._root)[:MAX_PER_REPOSITORY]:
            if old == head or not self._descends(old, head):
                continue
            kept = self._cache.load(self._root, old)
            if kept is not None:
                self._publish(old, kept, complete=True)  # ready now; the new commits follow
                self._extend(old, kept, head)
                return True
        return False

    def _extend(self, old: str, known: History, head: str) -> None:
        new, _ = self._log(f"{old}..{head}")
        self._finish(head, new + known.changed())

    def _finish(self, head: str, commits: list[tuple[str, ...]]) -> None:
        history = build(commits[:MAX_COMMITS], self._pause)
        self._publish(head, history, complete=True)
        self._cache.store(self._root, head, history)
        _trim_after(history)

    def _publish(self, head: str, history: History, *, complete: bool) -> None:
        if self._closed:
            raise _Stopped
        with self._lock:
            self._history, self._head, self._complete = history, head, complete
            self.version += 1

    def _pause(self) -> None:
        """Let a turn go first (see the module docstring); stop when closed."""
        if self._closed:
            raise _Stopped
        if time.perf_counter() - self._since < SLICE_S:
            return
        if self._urgent and self._started is not None:
            if time.monotonic() - self._started < FIRST_WAIT_S:
                return  # the first answer waits for this
            self._urgent = False
        time.sleep(_HAND_OVER_S)  # lets go of the interpreter: a waiting turn takes it
        while self._turns is not None and self._turns.locked() and not self._urgent:
            if self._closed:
                raise _Stopped
            time.sleep(_TURN_POLL_S)
        self._since = time.perf_counter()

    def _descends(self, old: str, head: str) -> bool:
        code, _, _ = self._runner.run(
            self._root, ["merge-base", "--is-ancestor", old, head], ok_codes=None
        )
        return code == 0

    def _log(
        self, revisions: str, *, count: int = MAX_COMMITS, skip: int = 0, limit: int = MAX_LOG_BYTES
    ) -> tuple[list[tuple[str, ...]], bool]:
        """Commits newest first (``revisions`` as git takes them), and whether that is all
        of them (not cut at ``limit`` bytes nor at ``count``)."""
        args = [*LOG_ARGS[:-2], f"--max-count={count}", f"--skip={skip}", revisions, "--"]
        _, out, _ = self._runner.run(self._root, args)
        cut = len(out) > limit
        commits = parse_commits(out, limit=limit, pause=self._pause)
        return commits, not cut and len(commits) < count


def _trim_after(history: History) -> None:
    if len(history.paths) >= _TRIM_AFTER_PATHS:
        return_free_memory()
