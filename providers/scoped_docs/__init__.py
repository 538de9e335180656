"""scoped docs: the nested docs and rule files that govern the files the agent touches.

Exports ``ScopedDocsProvider``, imported lazily so that the plugin's handshake is not
delayed by the provider's imports. Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ScopedDocsProvider"]


def __getattr__(name: str) -> Any:
    if name == "ScopedDocsProvider":
        from providers.scoped_docs.provider import ScopedDocsProvider

        return ScopedDocsProvider
    raise AttributeError(name)
