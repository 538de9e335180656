"""file tree: a map of the repository's files that fits the token budget, dynamic.

Exports ``FileTreeProvider`` and ``main``, imported lazily so that the
plugin's handshake is not delayed by pathspec and watchfiles.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["FileTreeProvider", "main"]


def __getattr__(name: str) -> Any:
    if name == "FileTreeProvider":
        from providers.file_tree.provider import FileTreeProvider

        return FileTreeProvider
    if name == "main":
        # By name: the plugin entry point is written separately from this package.
        return importlib.import_module("providers.file_tree.__main__").main
    raise AttributeError(name)
