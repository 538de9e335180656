"""The file tree provider: an orientation map of the repository that fits any budget.

Per Contribute: validate the request -> the live listing of the root
(``live.py``: cached, kept current by the watcher) -> rank expansion steps
around ``files_touched`` (``plan.py``) -> fit and render one dynamic section
(``render.py``). A turn where neither the listing nor the request changed
returns the previous contribution without walking or running git.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.errors import source_unavailable
from providers.core.identity import published_identity
from providers.core.provider import unless_busy
from providers.core.render_tree import Node
from providers.core.request import Turn
from providers.core.types import (
    Capabilities,
    Contribution,
    Identity,
    Stability,
)
from providers.file_tree.history import History
from providers.file_tree.live import LiveListing
from providers.file_tree.miner import HistoryMiner
from providers.file_tree.notes import annotator
from providers.file_tree.rank import Focus, order_touched
from providers.file_tree.render import View, render_section
from providers.file_tree.settings import (
    DEFAULT_TOKEN_BUDGET,
    NAME,
    SCHEMA,
    Settings,
    settings_from,
)
from providers.file_tree.view import tree_view
from providers.repository.gitexec import GitRunner
from providers.repository.layout import RepoRoots
from providers.repository.paths import normalise_touched
from providers.watch import WatcherFactory, default_watcher

log = logging.getLogger(__name__)

MAX_SESSIONS = 16
"""Sessions whose files_touched are remembered at once (sub-agents share a process)."""


@dataclass(frozen=True)
class _Where:
    """The last request's touched paths, resolved, and what they were resolved from."""

    key: tuple[Path, str, tuple[str, ...]]
    touched: tuple[str, ...]


@dataclass(frozen=True)
class _Answer:
    """The last contribution and everything it depended on."""

    key: tuple[object, ...]
    contribution: Contribution


class FileTreeProvider:
    """Implements :class:`providers.core.provider.ContextProvider`.

    ``watcher_factory`` builds the watcher for a root (tests feed their own
    changes through it); ``runner`` runs git (tests count its calls);
    ``environ`` is the environment git runs with (default: ours).
    """

    def __init__(
        self,
        *,
        watcher_factory: WatcherFactory = default_watcher,
        runner: GitRunner | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._watcher_factory = watcher_factory
        self._runner = runner if runner is not None else GitRunner(environ)
        self._settings = Settings()
        self._live: LiveListing | None = None
        self._answer: _Answer | None = None
        self._where: _Where | None = None
        self._resolved: tuple[tuple[object, ...], dict[str, str | None]] = ((), {})
        """Each files_touched entry resolved, for one root and working directory."""
        self._roots = RepoRoots()
        self._miner: HistoryMiner | None = None
        self._miner_root: Path | None = None
        self._sessions: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        """Per session: the last files_touched and the part of it that turn added."""
        self._lock = threading.Lock()

    def identity(self) -> Identity:
        return published_identity(NAME)

    def capabilities(self) -> Capabilities:
        return Capabilities(
            default_token_budget=DEFAULT_TOKEN_BUDGET,
            stability=Stability.DYNAMIC,
            config_schema=SCHEMA,
        )

    def configure(self, config: Mapping[str, Any]) -> None:
        settings = settings_from(config)
        with self._lock:
            self._settings = settings
            self._drop()

    def render(self, label: str, text: str) -> Node:
        """Render: the tree as nested lists of its entries (:func:`tree_view`)."""
        return tree_view(label, text)

    def answer_sent(self) -> None:
        """The answer is out: the watcher may start (:meth:`LiveListing.answer_sent`)."""
        unless_busy(self._lock, self._answer_sent)

    def _answer_sent(self) -> None:
        if self._live is not None:
            self._live.answer_sent()
        if self._miner is not None:
            self._miner.refresh()

    def close(self) -> None:
        """Stop the watcher thread (the plugin process is about to exit)."""
        with self._lock:
            self._drop()

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        with self._lock:
            root, touched = self._located(turn)
            live = self._live_for(root)
            try:
                listing = live.refresh()
            except OSError as exc:
                self._drop()
                raise source_unavailable(f"cannot list {root}: {exc}") from exc
            miner = self._miner_for(root)
            focus = self._focus(turn, root, touched, miner.history)
            key = (
                root,
                live.version,
                miner.version,
                turn.token_budget,
                turn.model_id,
                focus.touched,
                focus.fresh,
                focus.cwd,
                counter.epoch,
            )
            if self._answer is not None and self._answer.key == key:
                return self._answer.contribution
            settings = self._settings
            view = View(
                root.name or ".",  # the repository's name, never a machine path
                settings.show_files,
                settings.max_depth,
                listing.unreadable,
                annotator(root, listing.submodules),
            )
            section = render_section(listing.tree, view, focus, turn.token_budget, counter)
            if section is None:
                log.warning("token budget %d is too small for the file tree", turn.token_budget)
            contribution = Contribution((section,) if section is not None else ())
            self._answer = _Answer(key, contribution)
            return contribution

    def _focus(
        self, turn: Turn, root: Path, touched: tuple[str, ...], history: History | None
    ) -> Focus:
        """Where the agent is: this turn's files (the ones the kernel's growing list added
        last), earlier ones, the working directory below the root, and the history."""
        last = self._sessions.get(turn.session_id)
        if last is None or last[0] != touched:
            known = set(last[0]) if last is not None else set()
            fresh = tuple(p for p in touched if p not in known) or touched
            self._sessions[turn.session_id] = (touched, fresh)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.pop(next(iter(self._sessions)))
        else:
            fresh = last[1]
        fresh_set = set(fresh)  # 100,000 paths touched: a set, or the turn is quadratic
        focus = order_touched(fresh, [p for p in touched if p not in fresh_set])
        try:
            cwd = turn.working_directory.resolve().relative_to(root).as_posix()
        except ValueError:
            cwd = "."
        return replace(focus, cwd="" if cwd == "." else cwd, history=history)

    def _miner_for(self, root: Path) -> HistoryMiner:
        if self._miner is None or self._miner_root != root:
            if self._miner is not None:
                self._miner.close()
            self._miner = HistoryMiner(root, self._runner)
            self._miner_root = root
        return self._miner

    def _located(self, turn: Turn) -> tuple[Path, tuple[str, ...]]:
        """The root and the normalised ``files_touched``, remembered while the request repeats.

        Normalising resolves paths through the file system (a ``stat`` per
        component); a repeated request costs the root's memo check only.
        """
        root = self._roots.root(turn.working_directory)
        memo = self._where
        key = (root, turn.request.working_directory, turn.files_touched)
        if memo is not None and memo.key == key:
            return root, memo.touched
        if self._resolved[0] != key[:2]:
            self._resolved = (key[:2], {})
        resolved = self._resolved[1]
        touched = normalise_touched(
            root, turn.working_directory, turn.files_touched, resolved
        ).inside
        self._where = _Where(key, touched)
        return root, touched

    def _live_for(self, root: Path) -> LiveListing:
        if self._live is None or self._live.root != root:
            self._drop()
            factory = self._watcher_factory if self._settings.watch else None
            self._live = LiveListing(root, self._settings.listing, self._runner, factory)
        return self._live

    def _drop(self) -> None:
        if self._live is not None:
            self._live.close()
        if self._miner is not None:
            self._miner.close()
        self._live = None
        self._miner = None
        self._answer = None
