"""The provider protocol's helpers."""

from __future__ import annotations

import threading

from providers.core.provider import unless_busy


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
