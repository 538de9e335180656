"""repo conventions: the repository's convention files (AGENTS.md, CLAUDE.md, ...), static.

Exports ``RepoConventionsProvider``, imported lazily so that the plugin's handshake is not
delayed by the provider's imports. Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""

from __future__ import annotations

from typing import Any

__all__ = ["RepoConventionsProvider"]


def __getattr__(name: str) -> Any:
    if name == "RepoConventionsProvider":
        from providers.repo_conventions.provider import RepoConventionsProvider

        return RepoConventionsProvider
    raise AttributeError(name)
