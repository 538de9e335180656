"""scoped docs: the nested docs and rule files that govern the files the agent touches.

Exports ``ScopedDocsProvider`` and ``main``, imported lazily so that the plugin's
handshake is not delayed by markdown-it and pathspec.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ScopedDocsProvider", "main"]


def __getattr__(name: str) -> Any:
    if name == "ScopedDocsProvider":
        from providers.scoped_docs.provider import ScopedDocsProvider

        return ScopedDocsProvider
    if name == "main":
        from providers.scoped_docs.__main__ import main

        return main
    raise AttributeError(name)
