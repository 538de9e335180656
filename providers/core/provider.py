"""The interface every provider implements; the gRPC adapter depends on nothing else.

A provider is a plain object: tests call ``configure`` and ``collect``
directly, without a server. ``collect`` may raise :class:`ProviderError`;
every other exception is treated as a bug by the adapter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

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


@runtime_checkable
class AnswerSentHook(Protocol):
    """Optional: told once the kernel has a Contribute answer.

    Work that would hold up the answer (setting up a file watcher holds the
    interpreter lock for a second on a large tree) starts here, in the idle
    time between turns. A provider must not depend on being told: used
    in-process nothing calls it, and the next ``collect`` starts the work.
    """

    def answer_sent(self) -> None: ...
