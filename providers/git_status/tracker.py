"""One repository across turns: recompute only what changed, reuse the rest.

Per turn: freshness check (no process) -> snapshot if anything changed (one
``git status``, plus ``git log`` when HEAD moved) -> summarize, unless the
snapshot, budget and model are what the previous answer was made from, in
which case that answer is returned as is.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from providers.core.budget import TokenCounter
from providers.core.types import Contribution, Section, Stability
from providers.git_status.freshness import Freshness
from providers.git_status.git import Git, RepoLayout
from providers.git_status.settings import Settings
from providers.git_status.snapshot import Snapshot, Snapshotter
from providers.git_status.summarize import Options, summarize
from providers.repository.paths import normalise_touched
from providers.watch import WatcherFactory

LABEL = "git status"


class RepoTracker:
    """Caches for the repository a working directory belongs to."""

    def __init__(
        self,
        working_directory: Path,
        layout: RepoLayout,
        git: Git,
        settings: Settings,
        watcher_factory: WatcherFactory | None,
    ) -> None:
        self.working_directory = working_directory
        self.layout = layout
        self._freshness = Freshness(layout, watcher_factory if settings.watch else None, git.runner)
        self._snapshotter = Snapshotter(
            git, layout, untracked=settings.untracked, recent_commits=settings.recent_commits
        )
        self._options = Options(
            untracked_shown=settings.untracked != "no", max_entries=settings.max_entries
        )
        self._snapshot: Snapshot | None = None
        self._answer: tuple[tuple[Snapshot, int, str, int], Contribution] | None = None

    def contribute(
        self, budget: int, model_id: str, touched: Iterable[str], counter: TokenCounter
    ) -> Contribution:
        """This turn's contribution; raises what the snapshot raises (and recomputes next turn)."""
        if self._freshness.changed(self._touched(touched)) or self._snapshot is None:
            try:
                self._snapshot = self._snapshotter.take()
            except BaseException:
                self._snapshot = None
                self._freshness.invalidate()
                raise
            self._freshness.answer_computed()
        key = (self._snapshot, budget, model_id, counter.epoch)
        if self._answer is not None and self._answer[0] == key:
            return self._answer[1]
        summary = summarize(self._snapshot, budget, counter, self._options)
        contribution = Contribution()
        if summary is not None:
            section = Section(
                label=LABEL,
                text=summary.text,
                tokens=summary.tokens,
                stability=Stability.DYNAMIC,
                truncated=summary.truncated,
            )
            contribution = Contribution((section,))
        self._answer = (key, contribution)
        return contribution

    def answer_sent(self) -> None:
        """The answer is out: the watchers may start (see :meth:`Freshness.answer_sent`)."""
        self._freshness.answer_sent()

    def stop(self) -> None:
        self._freshness.stop()

    def _touched(self, entries: Iterable[str]) -> list[Path]:
        root = self.layout.toplevel
        entries = list(entries)
        if root is None or not entries:
            return []
        inside = normalise_touched(root, self.working_directory, entries).inside
        return [root / rel for rel in inside]
