"""The providers of this bundle, listed once.

Console scripts, the standalone preview, the reference host, tests and
benchmarks all read this list. Adding a provider is one package under
``providers/`` (with ``provider.py``, ``settings.py`` and ``__main__.py``)
and one line here; ``pyproject.toml``'s console scripts are checked against
it by a test.

A provider is loaded from its ``module:Class`` spec by :class:`ProviderHandle`: the
plugin imports it in the background once the handshake line is out (the provider's
imports are the slow part of start-up), so every call first waits for it; the
standalone preview loads it at once. Nothing here imports grpc.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

from providers.core.provider import AnswerSentHook, ContextProvider, RenderHook
from providers.core.render_tree import Node
from providers.core.types import ConfigAttribute


@dataclass(frozen=True)
class ProviderEntry:
    """One provider: its package under ``providers/`` and its provider class."""

    package: str
    """``repo_conventions``: the package, and the agent.hcl name users tend to give it."""
    class_name: str
    summary: str
    """What it contributes, for ``--help`` (the README's table says the same)."""

    @property
    def published(self) -> str:
        """Our published name (``repo-conventions``): ProducerRef.name and the source's tail."""
        return self.package.replace("_", "-")

    @property
    def script(self) -> str:
        """The console script (``context-repo-conventions``)."""
        return f"context-{self.published}"

    @property
    def title(self) -> str:
        """``repo conventions``: how the README and ``--help`` name it."""
        return self.package.replace("_", " ")

    @property
    def module(self) -> str:
        return f"providers.{self.package}"

    def schema(self) -> tuple[ConfigAttribute, ...]:
        """The provider's config schema (its ``settings.SCHEMA``), without loading the
        provider itself: hosts read it to vet a block before anything starts."""
        schema: tuple[ConfigAttribute, ...] = importlib.import_module(
            f"{self.module}.settings"
        ).SCHEMA
        return schema

    @property
    def factory(self) -> str:
        """``module:Class`` for :class:`ProviderHandle`."""
        return f"{self.module}.provider:{self.class_name}"


PROVIDERS: tuple[ProviderEntry, ...] = (
    ProviderEntry(
        "repo_conventions",
        "RepoConventionsProvider",
        "the repository's convention files (AGENTS.md, CLAUDE.md, ...), imports resolved, "
        "authoring artifacts stripped",
    ),
    ProviderEntry(
        "git_status", "GitStatusProvider", "branch, upstream, changes and recent commits"
    ),
    ProviderEntry(
        "file_tree", "FileTreeProvider", "an orientation map of the repository that fits its budget"
    ),
    ProviderEntry(
        "scoped_docs",
        "ScopedDocsProvider",
        "docs and rules whose globs match the files the agent touched",
    ),
)


def by_package(package: str) -> ProviderEntry:
    for entry in PROVIDERS:
        if entry.package == package:
            return entry
    raise KeyError(package)


def by_published(name: str) -> ProviderEntry | None:
    return next((entry for entry in PROVIDERS if entry.published == name), None)


class ProviderHandle:
    """Imports ``module:Class`` (in the background or now) and hands out the one instance."""

    def __init__(self, spec: str) -> None:
        self._spec = spec
        self._ready = threading.Event()
        self._provider: ContextProvider | None = None
        self._error: BaseException | None = None
        self.answer_sent: Callable[[], None] | None = None
        """The provider's ``answer_sent``, if it has one (found once: a protocol check costs
        microseconds per call)."""
        self.render: Callable[[str, str], Node] | None = None
        """The provider's ``render``, if it has one (Render answers UNIMPLEMENTED without)."""

    def load_in_background(self) -> None:
        threading.Thread(target=self._load, name="provider-import", daemon=True).start()

    def load_now(self) -> ContextProvider:
        self._load()
        return self.get()

    def _load(self) -> None:
        if self._ready.is_set():
            return
        try:
            module_name, _, attr = self._spec.partition(":")
            factory: Callable[[], ContextProvider] = getattr(
                importlib.import_module(module_name), attr
            )
            self._provider = factory()
            if isinstance(self._provider, AnswerSentHook):
                self.answer_sent = self._provider.answer_sent
            if isinstance(self._provider, RenderHook):
                self.render = self._provider.render
        except BaseException as exc:  # surfaced on first use, as an INTERNAL error
            self._error = exc
        finally:
            self._ready.set()

    def close(self, timeout: float) -> None:
        """Let a loaded provider stop what it started (watchers, git runs still going),
        waiting at most ``timeout`` seconds: a turn may hold its lock."""
        close = getattr(self._provider, "close", None) if self._ready.is_set() else None
        if callable(close):
            closing = threading.Thread(target=close, name="provider-close", daemon=True)
            closing.start()
            closing.join(timeout)

    def get(self) -> ContextProvider:
        self._ready.wait()
        if self._provider is None:
            raise RuntimeError(f"could not load provider {self._spec}: {self._error!r}")
        return self._provider
