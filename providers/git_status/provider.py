"""The git status provider: one dynamic section, fresh every turn, cheap when nothing changed.

Steps per Contribute: validate the request -> find the repository (one
``git rev-parse`` per working directory, cached) -> :class:`RepoTracker`
decides whether anything changed and renders within the budget. A directory
outside every repository contributes nothing; git failures are
``source_unavailable`` for this turn only. A repository git may not run in
(``repository.guard``: its config would run programs or read outside it, or
its git dir or work tree is not its own) gets a one-line section saying so.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter, fit
from providers.core.identity import published_identity
from providers.core.provider import unless_busy
from providers.core.render_tree import Node
from providers.core.request import Turn
from providers.core.types import (
    Capabilities,
    Contribution,
    Identity,
    Section,
    Stability,
    Unit,
)
from providers.git_status.git import Git, NotARepository, RepositoryRefused, find_executable
from providers.git_status.render import render_status
from providers.git_status.settings import (
    DEFAULT_TOKEN_BUDGET,
    NAME,
    SCHEMA,
    Settings,
    settings_from,
)
from providers.git_status.tracker import LABEL, RepoTracker
from providers.watch import WatcherFactory, default_watcher


class GitStatusProvider:
    """Implements :class:`providers.core.provider.ContextProvider`.

    ``watcher_factory`` builds a watcher per watched root (tests inject their
    own); ``environ`` is the environment git runs with (default: ours).
    """

    def __init__(
        self,
        *,
        watcher_factory: WatcherFactory = default_watcher,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._watcher_factory = watcher_factory
        self._environ = environ
        self._settings = settings_from({})  # an empty provider block: the schema's defaults
        self._git: Git | None = None
        """Made by ``configure``, or by the first turn when none came: finding the executable
        may fail, and that is a turn's error (or Configure's), never the constructor's."""
        self._tracker: RepoTracker | None = None
        self._lock = threading.Lock()  # the adapter may serve calls on several threads

    def identity(self) -> Identity:
        return published_identity(NAME)

    def capabilities(self) -> Capabilities:
        return Capabilities(
            default_token_budget=DEFAULT_TOKEN_BUDGET,
            stability=Stability.DYNAMIC,
            config_schema=SCHEMA,
        )

    def configure(self, config: Mapping[str, Any]) -> None:
        """Check the config (the git executable must exist) and drop every cache."""
        settings = settings_from(config)
        git = self._git_for(settings)
        with self._lock:
            self._close()
            self._settings = settings
            self._git = git

    def render(self, label: str, text: str) -> Node:
        """Render: the section as styled lines and lists (:func:`render_status`)."""
        return render_status(label, text)

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        with self._lock:
            if self._git is None:  # the kernel sent no Configure
                self._git = self._git_for(self._settings)
            return self._collect(turn, counter, self._git)

    def _collect(self, turn: Turn, counter: TokenCounter, git: Git) -> Contribution:
        settings = self._settings
        try:
            tracker = self._tracker_for(turn.working_directory.resolve(), settings, git)
            if tracker is None:
                return Contribution(why_empty="not in a git repository")
            return tracker.contribute(turn.token_budget, turn.model_id, turn.files_touched, counter)
        except NotARepository:  # the repository went away since it was found
            self._close()
            return Contribution()
        except RepositoryRefused as refused:
            return refusal(str(refused), turn.token_budget, counter)

    def answer_sent(self) -> None:
        """The answer is out: the watchers may start (:meth:`Freshness.answer_sent`)."""
        unless_busy(self._lock, self._answer_sent)

    def _answer_sent(self) -> None:
        if self._tracker is not None:
            self._tracker.answer_sent()

    def close(self) -> None:
        """Stop watching; the next collect starts afresh."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._tracker is not None:
            self._tracker.stop()
            self._tracker = None

    def _git_for(self, settings: Settings) -> Git:
        """The configured git, found (``invalid_request`` when it is not there)."""
        return Git(
            find_executable(settings.git), timeout_ms=settings.timeout_ms, environ=self._environ
        )

    def _tracker_for(
        self, working_directory: Path, settings: Settings, git: Git
    ) -> RepoTracker | None:
        if self._tracker is not None and self._tracker.working_directory == working_directory:
            return self._tracker
        self._close()
        layout = git.discover(working_directory)
        if layout is None or (layout.toplevel is None and not layout.bare):
            return None  # no repository, or a working directory inside a .git dir
        self._tracker = RepoTracker(working_directory, layout, git, settings, self._watcher_factory)
        return self._tracker


REFUSED_SHORT = (
    "Note: git not run here: this repository's config or layout is not safe to run it in"
)


def refusal(reason: str, budget: int, counter: TokenCounter) -> Contribution:
    """The section for a repository git is not run in: the reason, or a shorter line
    when the reason does not fit; nothing when neither does."""
    units = [Unit("", name="reason")]

    def render(kept: object, dropped: object) -> tuple[str, ...]:
        return (f"Note: {reason}" if kept else REFUSED_SHORT,)

    result = fit(units, budget, render, counter)
    if result is None:
        return Contribution()
    text = result.texts[0]
    section = Section(LABEL, text, result.counts[0], Stability.DYNAMIC, bool(result.dropped))
    return Contribution((section,))
