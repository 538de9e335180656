"""file tree: a map of the repository's files that fits the token budget, dynamic.

Exports ``FileTreeProvider``, imported lazily so that the plugin's handshake is not
delayed by the provider's imports. Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FileTreeProvider"]


def __getattr__(name: str) -> Any:
    if name == "FileTreeProvider":
        from providers.file_tree.provider import FileTreeProvider

        return FileTreeProvider
    raise AttributeError(name)
