"""The interface every provider implements; the gRPC adapter depends on nothing else.

A provider is a plain object: tests call ``configure`` and :func:`contribute`
directly, without a server. ``collect`` may raise :class:`ProviderError`;
every other exception is treated as a bug by the adapter.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from providers.core.budget import TokenCounter
from providers.core.deadline import Deadline
from providers.core.render_tree import Node
from providers.core.request import Turn, check_request
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

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        """This turn's sections, within ``turn.token_budget`` (> 0) by ``counter``."""
        ...


def contribute(
    provider: ContextProvider,
    request: ContextRequest,
    counter: TokenCounter,
    deadline: Deadline | None = None,
) -> Contribution:
    """The one way a request reaches a provider: checked once, budget 0 answered here.

    ``deadline``: when the turn stops taking on work (default: a turn's work budget
    from now, :data:`~providers.core.deadline.TURN_WORK_SECONDS`).
    """
    turn = check_request(request, deadline or Deadline.for_turn())
    if turn.token_budget == 0:
        return Contribution(why_empty="the token budget is 0")
    return provider.collect(turn, counter)


@runtime_checkable
class AnswerSentHook(Protocol):
    """Optional: told once the kernel has a Contribute answer.

    Work that would hold up the answer (setting up a file watcher holds the
    interpreter lock for a second on a large tree) starts here, in the idle
    time between turns. A provider must not depend on being told: used
    in-process nothing calls it, and the next ``collect`` starts the work.
    """

    def answer_sent(self) -> None: ...


@runtime_checkable
class RenderHook(Protocol):
    """Optional: how this provider's own section text looks as a render tree (Render).

    Called with a section's label and text as this provider wrote them, on any
    thread and without the provider's lock: a pure function of its arguments,
    total (text in an unexpected shape still renders, as plain text).
    """

    def render(self, label: str, text: str) -> Node: ...


def unless_busy(lock: threading.Lock, work: Callable[[], None]) -> None:
    """Run ``work`` holding ``lock``, or not at all when a turn holds it.

    For ``answer_sent``: gRPC may call it on the thread that drives every
    call, which must not wait for a turn; the running turn's ``collect``
    starts the same work itself.
    """
    if not lock.acquire(blocking=False):
        return
    try:
        work()
    finally:
        lock.release()
