"""repo conventions: the repository's convention files (AGENTS.md, CLAUDE.md, ...), static.

Exports ``RepoConventionsProvider`` and ``main``, imported lazily so that the
plugin's handshake is not delayed by markdown-it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RepoConventionsProvider", "main"]


def __getattr__(name: str) -> Any:
    if name == "RepoConventionsProvider":
        from providers.repo_conventions.provider import RepoConventionsProvider

        return RepoConventionsProvider
    if name == "main":
        from providers.repo_conventions.__main__ import main

        return main
    raise AttributeError(name)
