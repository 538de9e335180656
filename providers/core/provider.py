"""The interface every provider implements; the gRPC adapter depends on nothing else.

A provider is a plain object: tests call ``configure`` and ``collect``
directly, without a server. ``collect`` may raise :class:`ProviderError`;
every other exception is treated as a bug by the adapter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from providers.core.budget import TokenCounter
from providers.core.types import Capabilities, ContextRequest, Contribution, Identity


class ContextProvider(Protocol):
    """What the adapter needs from a provider."""

    def identity(self) -> Identity:
        """Published name, version and source (Describe)."""
        ...

    def capabilities(self) -> Capabilities:
        """Budget default, stability and config schema (GetCapabilities)."""
        ...

    def configure(self, config: Mapping[str, Any]) -> None:
        """Apply the decoded ``provider`` block; raise ``invalid_request`` on bad config."""
        ...

    def collect(self, request: ContextRequest, counter: TokenCounter) -> Contribution:
        """This turn's sections, each within ``request.token_budget`` by ``counter``."""
        ...
