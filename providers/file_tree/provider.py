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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter
from providers.core.config import COMMON_ATTRIBUTES, non_negative_int, resolve_config
from providers.core.errors import source_unavailable
from providers.core.identity import published_identity
from providers.core.paths import normalise_touched
from providers.core.provider import unless_busy
from providers.core.request import checked_working_directory
from providers.core.types import (
    AttrType,
    Capabilities,
    ConfigAttribute,
    ContextRequest,
    Contribution,
    Identity,
    Stability,
)
from providers.core.watch import WatcherFactory, default_watcher
from providers.file_tree.listing import DEFAULT_IGNORE_FILE, ListingOptions
from providers.file_tree.live import LiveListing
from providers.file_tree.render import View, render_section
from providers.repository.gitexec import GitRunner
from providers.repository.layout import RepoRoots

log = logging.getLogger(__name__)

NAME = "file-tree"
DEFAULT_TOKEN_BUDGET = 1000

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "exclude",
        AttrType.LIST_STRING,
        "Gitignore-style patterns (relative to the repository root) hidden from the tree, "
        "on top of what git ignores; tracked files too.",
        default=(),
    ),
    ConfigAttribute(
        "max_depth",
        AttrType.NUMBER,
        "Deepest level expanded breadth first (1: the root's entries only); directories "
        "on the way to files_touched are expanded regardless. Unset: no limit.",
    ),
    ConfigAttribute(
        "show_files",
        AttrType.BOOL,
        "List files; false shows directories only, each with its counts.",
        default=True,
    ),
    ConfigAttribute(
        "ignore_file",
        AttrType.STRING,
        "Our own gitignore-style file at the repository root (patterns relative to the "
        'root); "" for none.',
        default=DEFAULT_IGNORE_FILE,
    ),
    ConfigAttribute(
        "watch",
        AttrType.BOOL,
        "Keep the listing current with a file watcher; false compares directory times each "
        "turn (a stat per directory) and lists again only when one changed.",
        default=True,
    ),
)


@dataclass(frozen=True)
class Settings:
    """The resolved config; a change drops the listing and its watcher."""

    listing: ListingOptions = field(default_factory=ListingOptions)
    max_depth: int | None = None
    show_files: bool = True
    watch: bool = True


def settings_from(config: Mapping[str, Any]) -> Settings:
    """Check ``config`` against :data:`SCHEMA` (``invalid_request`` on anything wrong)."""
    values = resolve_config(SCHEMA, config)
    non_negative_int(values, "token_budget")
    return Settings(
        ListingOptions(tuple(values["exclude"]), values["ignore_file"]),
        non_negative_int(values, "max_depth"),
        values["show_files"],
        values["watch"],
    )


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
        self._roots = RepoRoots()
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

    def answer_sent(self) -> None:
        """The answer is out: the watcher may start (:meth:`LiveListing.answer_sent`)."""
        unless_busy(self._lock, self._answer_sent)

    def _answer_sent(self) -> None:
        if self._live is not None:
            self._live.answer_sent()

    def close(self) -> None:
        """Stop the watcher thread (the plugin process is about to exit)."""
        with self._lock:
            self._drop()

    def collect(self, request: ContextRequest, counter: TokenCounter) -> Contribution:
        working_directory = checked_working_directory(request)
        if request.token_budget == 0:
            return Contribution()
        assert request.model_target is not None  # checked above
        with self._lock:
            root, touched = self._located(request, working_directory)
            live = self._live_for(root)
            try:
                listing = live.refresh()
            except OSError as exc:
                self._drop()
                raise source_unavailable(f"cannot list {root}: {exc}") from exc
            key = (root, live.version, request.token_budget, request.model_target.id, touched)
            if self._answer is not None and self._answer.key == key:
                return self._answer.contribution
            settings = self._settings
            view = View(str(root), settings.show_files, settings.max_depth, listing.unreadable)
            section = render_section(listing.tree, view, touched, request.token_budget, counter)
            if section is None:
                log.warning("token budget %d is too small for the file tree", request.token_budget)
            contribution = Contribution((section,) if section is not None else ())
            self._answer = _Answer(key, contribution)
            return contribution

    def _located(
        self, request: ContextRequest, working_directory: Path
    ) -> tuple[Path, tuple[str, ...]]:
        """The root and the normalised ``files_touched``, remembered while the request repeats.

        Normalising resolves paths through the file system (a ``stat`` per
        component); a repeated request costs the root's memo check only.
        """
        root = self._roots.root(working_directory)
        memo = self._where
        key = (root, request.working_directory, request.files_touched)
        if memo is not None and memo.key == key:
            return root, memo.touched
        touched = normalise_touched(root, working_directory, request.files_touched).inside
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
        self._live = None
        self._answer = None
