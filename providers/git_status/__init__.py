"""git status: branch, operation in progress, changes and recent commits, fresh every turn.

Exports ``GitStatusProvider``, imported lazily so that the plugin's handshake is not
delayed by the provider's imports. Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""

from __future__ import annotations

from typing import Any

__all__ = ["GitStatusProvider"]


def __getattr__(name: str) -> Any:
    if name == "GitStatusProvider":
        from providers.git_status.provider import GitStatusProvider

        return GitStatusProvider
    raise AttributeError(name)
