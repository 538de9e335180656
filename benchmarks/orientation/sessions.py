"""Issue 22 item 3: the history a session's first answer ranks with, against later turns'.

The provider's own miner (``HistoryMiner``) runs against the bare mirror with HEAD at
the task's parent, as it would in a fresh process:

- **later turns**: the whole history (2,000 commits), mined after the first answer;
- **first, kept**: the cache holds what a session :data:`SESSION_GAP` commits earlier
  (first parents) mined; the miner finds it, mines only the commits since and extends it;
- **first, none kept**: an empty cache: the newest ``first_commits`` commits (at most
  ``FIRST_LOG_BYTES`` of log), what the first answer waits for;
- **first, no history**: what every first answer had before (none).

The time each first answer's mining took is kept per repository: the provider waits for
it at most ``FIRST_WAIT_S`` (the figures say how often that is enough). Mining is waited
for here until it is done, so the recall is that of the history described.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.orientation.cases import RepoCase, git, git_env
from benchmarks.orientation.ours import history_at
from providers.file_tree.history import History
from providers.file_tree.history_cache import HistoryCache
from providers.file_tree.miner import FIRST_COMMITS, HistoryMiner
from providers.repository.gitexec import GitRunner

LATER, KEPT, NONE_KEPT, BARE = "later turns", "first, kept", "first, none kept", "first, bare"
VARIANTS = (LATER, KEPT, NONE_KEPT, BARE)
SESSION_GAP = 10
"""Commits between the session that kept its history and this one."""


@dataclass
class FirstTurns:
    """Per variant, the history each task parent ranks with; per first variant, the
    seconds its mining took."""

    histories: dict[str, dict[str, History | None]] = field(default_factory=dict)
    seconds: dict[str, list[float]] = field(default_factory=dict)

    def summary(self, variant: str) -> str:
        """Median and slowest mining time, in ms."""
        found = self.seconds.get(variant)
        if not found:
            return ""
        return f"{1000 * statistics.median(found):.0f}/{1000 * max(found):.0f}"


def first_turns(
    repo: RepoCase, parents: Iterable[str], first_commits: int = FIRST_COMMITS
) -> FirstTurns:
    """Each variant's history at each of ``parents``."""
    runner = GitRunner(git_env())
    found = FirstTurns({v: {} for v in VARIANTS}, {KEPT: [], NONE_KEPT: []})
    scratch = Path(tempfile.mkdtemp(prefix="orientation-cache-"))
    try:
        for parent in parents:
            found.histories[LATER][parent] = history_at(repo, parent)
            found.histories[BARE][parent] = None
            history, took = _first(repo, runner, parent, None, first_commits)
            found.histories[NONE_KEPT][parent] = history
            found.seconds[NONE_KEPT].append(took)
            cache = HistoryCache(scratch / parent)
            old = _ancestor(repo, parent)
            if old is not None:
                cache.store(repo.git_dir, old, history_at(repo, old))
            history, took = _first(repo, runner, parent, cache, first_commits)
            found.histories[KEPT][parent] = history
            found.seconds[KEPT].append(took)
            shutil.rmtree(scratch / parent, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return found


def _first(
    repo: RepoCase,
    runner: GitRunner,
    parent: str,
    cache: HistoryCache | None,
    first_commits: int,
) -> tuple[History | None, float]:
    """What a fresh provider's miner has for its first answer, waited for until done."""
    miner = HistoryMiner(
        repo.git_dir, runner, cache, head=lambda: parent, first_commits=first_commits
    )
    started = time.perf_counter()
    miner.start()
    miner.wait_first(None)
    took = time.perf_counter() - started
    miner.close()
    return miner.history, took


def _ancestor(repo: RepoCase, parent: str) -> str | None:
    try:
        out = git("rev-parse", "--verify", "-q", f"{parent}~{SESSION_GAP}", git_dir=repo.git_dir)
    except subprocess.CalledProcessError:  # history shorter than the gap: no earlier session
        return None
    return out.decode().strip() or None
