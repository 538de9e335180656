"""The providers of this bundle, listed once.

Console scripts, the standalone preview, the reference host, tests and
benchmarks all read this list. Adding a provider is one package under
``providers/`` (with ``provider.py``, ``settings.py`` and ``__main__.py``)
and one line here; ``pyproject.toml``'s console scripts are checked against
it by a test.
"""

from __future__ import annotations

from dataclasses import dataclass


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

    @property
    def factory(self) -> str:
        """``module:Class`` for :class:`providers.core.handle.ProviderHandle`."""
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
