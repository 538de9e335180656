"""One provider instance per process, made from its ``module:Class`` spec.

The plugin imports its provider in the background once the handshake line is
out (the provider's imports are the slow part of start-up), so every call
first waits for it; the standalone preview loads it at once. Nothing here
imports grpc: both the plugin server and the preview use it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable

from providers.core.provider import AnswerSentHook, ContextProvider, RenderHook
from providers.core.rendering import Node


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
