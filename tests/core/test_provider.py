"""The provider protocol's helpers."""

from __future__ import annotations

import threading
from pathlib import Path

from providers.core.budget import FallbackCounter
from providers.core.deadline import NEVER, TURN_WORK_SECONDS, WORK_SHARE, Deadline
from providers.core.provider import contribute, unless_busy
from providers.core.request import Turn
from providers.core.types import ContextRequest, Contribution, ModelTarget


def test_answer_sent_work_never_waits_for_a_running_turn() -> None:
    """gRPC may call ``answer_sent`` on the thread that drives every call: while a turn
    holds the provider's lock the work is skipped (that turn's collect does it)."""
    lock = threading.Lock()
    done: list[str] = []
    unless_busy(lock, lambda: done.append("free"))
    with lock:
        unless_busy(lock, lambda: done.append("busy"))
    assert done == ["free"]
    assert not lock.locked()


def test_a_turn_works_within_its_budget_or_its_callers_deadline() -> None:
    """Issue 20 items 5-8: every turn carries a deadline for its work, TURN_WORK_SECONDS
    by default and a share of the gRPC call's time remaining when that is shorter, so a
    turn answers with what it has inside the kernel's 10 s."""
    seen: list[Turn] = []

    class Recorder:
        def collect(self, turn: Turn, counter: object) -> Contribution:
            seen.append(turn)
            return Contribution()

    request = ContextRequest(1, str(Path.cwd()), ModelTarget("m"))
    contribute(Recorder(), request, FallbackCounter())  # type: ignore[arg-type]
    assert TURN_WORK_SECONDS - 0.5 < seen[-1].deadline.remaining() <= TURN_WORK_SECONDS
    contribute(Recorder(), request, FallbackCounter(), Deadline.for_turn(2.0))  # type: ignore[arg-type]
    assert seen[-1].deadline.remaining() <= 2.0 * WORK_SHARE
    assert Deadline.for_turn(60.0).remaining() <= TURN_WORK_SECONDS
    assert not NEVER.expired() and NEVER.part(0.5) is NEVER
    assert Deadline.after(0).expired()
