"""The watcher only marks what changed; a dead watcher means "assume everything"."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.core.watch import MAX_RESTARTS, Changes, ChangeWatcher, RestartBudget


def wait_for(watcher: ChangeWatcher, seconds: float = 3.0) -> Changes:
    deadline = time.monotonic() + seconds
    seen: set[str] = set()
    while time.monotonic() < deadline:
        changes = watcher.drain()
        seen |= changes.paths
        if changes.overflow:
            return changes
        if seen:
            time.sleep(0.1)
            return Changes(frozenset(seen | watcher.drain().paths), False)
        time.sleep(0.02)
    return Changes(frozenset(seen), False)


def test_real_watcher_reports_changed_paths_and_skips_git_objects(tmp_path: Path) -> None:
    (tmp_path / ".git" / "objects" / "pack").mkdir(parents=True)
    watcher = ChangeWatcher(tmp_path)
    try:
        assert watcher.start()
        assert not watcher.drain().any
        (tmp_path / ".git" / "objects" / "pack" / "tmp_pack_1").write_text("x")
        (tmp_path / "edited.txt").write_text("x")
        changes = wait_for(watcher)
        assert not changes.overflow
        assert str(tmp_path / "edited.txt") in changes.paths
        assert not any("/.git/objects/" in p for p in changes.paths)
    finally:
        watcher.stop()


def test_injected_watch_function_and_death_means_overflow(tmp_path: Path) -> None:
    def fake_watch(*_: Any, **__: Any) -> Iterator[set[tuple[int, str]]]:
        yield set()
        yield {(1, str(tmp_path / "a"))}
        raise OSError("inotify watch limit reached")

    watcher = ChangeWatcher(tmp_path, watch_fn=fake_watch)
    watcher.start(timeout=2)
    deadline = time.monotonic() + 2
    while watcher.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    changes = watcher.drain()
    assert changes.overflow  # the watcher died: callers must recompute everything
    assert not watcher.alive


def test_a_dead_watcher_may_be_replaced_three_times_and_the_refusal_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    budget = RestartBudget()
    assert [budget.take(tmp_path) for _ in range(MAX_RESTARTS + 3)] == [True] * MAX_RESTARTS + [
        False
    ] * 3
    assert caplog.text.count("starting it again") == MAX_RESTARTS
    assert caplog.text.count("going on without one") == 1
