"""The file tree provider: an orientation map of the repository that fits any budget.

Per Contribute, each step a collaborator with one job: where the turn is
(``location.py``: the root and the touched files, normalised) -> the root's
live listing and history (``root_state.py``; the listing kept current by the
watcher, ``live.py``) -> where the agent is (``focus.py``: this turn's files,
per session) -> rank expansion steps (``plan.py``) and fit one dynamic section
to the budget (``section.py``). A turn where neither the listing nor the
request changed returns the previous contribution without walking or running git.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.errors import source_unavailable
from providers.core.identity import published_identity
from providers.core.provider import unless_busy
from providers.core.render_tree import Node
from providers.core.request import Turn
from providers.core.types import Capabilities, Contribution, Identity, Section, Stability
from providers.file_tree.focus import FocusTracker
from providers.file_tree.history_cache import HistoryCache
from providers.file_tree.listing import Listing
from providers.file_tree.live import LiveListing
from providers.file_tree.location import Locator
from providers.file_tree.miner import HistoryMiner
from providers.file_tree.notes import annotator
from providers.file_tree.rank import Focus
from providers.file_tree.render import render_file_tree
from providers.file_tree.root_state import RootState
from providers.file_tree.section import Presentation, build_section
from providers.file_tree.settings import (
    DEFAULT_TOKEN_BUDGET,
    NAME,
    SCHEMA,
    settings_from,
)
from providers.repository.gitexec import GitRunner
from providers.watch import WatcherFactory, default_watcher

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Answer:
    """The last contribution and everything it depended on."""

    key: tuple[object, ...]
    contribution: Contribution


class FileTreeProvider:
    """Implements :class:`providers.core.provider.ContextProvider`.

    ``watcher_factory`` builds the watcher for a root (tests feed their own
    changes through it); ``runner`` runs git (tests count its calls);
    ``environ`` is the environment git runs with (default: ours), and where the history
    cache is (``XDG_CACHE_HOME``, ``HOME``).
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
        self._history_cache = HistoryCache.from_environ(self._runner.environ)
        self._settings = settings_from({})  # an empty provider block: the schema's defaults
        self._locator = Locator()
        self._state: RootState | None = None
        self._focus = FocusTracker()
        self._answer: _Answer | None = None
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
        """Render: the tree as nested lists of its entries (:func:`render_file_tree`)."""
        return render_file_tree(label, text)

    def answer_sent(self) -> None:
        """The answer is out: the watcher may start (:meth:`RootState.answer_sent`)."""
        unless_busy(self._lock, self._answer_sent)

    def _answer_sent(self) -> None:
        if self._state is not None:
            self._state.answer_sent()

    def close(self) -> None:
        """Stop the watcher thread (the plugin process is about to exit)."""
        with self._lock:
            self._drop()

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        with self._lock:
            root, touched = self._locator.locate(turn)
            state = self._state_for(root)
            try:
                listing = state.refresh()
            except OSError as exc:
                self._drop()
                raise source_unavailable(f"cannot list {root}: {exc}") from exc
            focus = self._focus.focus(turn, root, touched, state.history)
            key = (
                root,
                *state.version,
                turn.token_budget,
                turn.model_id,
                focus.touched,
                focus.fresh,
                focus.cwd,
                counter.epoch,
            )
            if self._answer is not None and self._answer.key == key:
                return self._answer.contribution
            section = self._section(root, listing, focus, turn.token_budget, counter)
            contribution = Contribution((section,) if section is not None else ())
            self._answer = _Answer(key, contribution)
            return contribution

    def _section(
        self, root: Path, listing: Listing, focus: Focus, budget: int, counter: TokenCounter
    ) -> Section | None:
        settings = self._settings
        presentation = Presentation(
            root.name or ".",  # the repository's name, never a machine path
            settings.show_files,
            settings.max_depth,
            listing.unreadable,
            annotator(root, listing.submodules),
            listing.partial,
        )
        section = build_section(listing.tree, presentation, focus, budget, counter)
        if section is None:
            log.warning("token budget %d is too small for the file tree", budget)
        return section

    def _state_for(self, root: Path) -> RootState:
        if self._state is None or self._state.root != root:
            self._drop()
            factory = self._watcher_factory if self._settings.watch else None
            live = LiveListing(root, self._settings.listing, self._runner, factory)
            miner = HistoryMiner(root, self._runner, self._history_cache, self._lock)
            self._state = RootState(live, miner)
        return self._state

    def _drop(self) -> None:
        if self._state is not None:
            self._state.close()
        self._state = None
        self._answer = None
