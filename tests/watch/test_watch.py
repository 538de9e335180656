"""The watcher only marks what changed; a dead watcher means "assume everything"."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.watch import (
    MAX_RESTARTS,
    Changes,
    ChangeWatcher,
    RestartBudget,
    Watcher,
    WatchLifecycle,
    WatchStatus,
)
from providers.watch.backend import Backend
from providers.watch.changes import is_git_noise
from tests.support.watchers import WatcherBox


def wait_for(watcher: Watcher, seconds: float = 3.0, wanted: int = 1) -> Changes:
    """What ``watcher`` reports once ``wanted`` paths showed (and a little more time)."""
    deadline = time.monotonic() + seconds
    seen: set[str] = set()
    while time.monotonic() < deadline:
        changes = watcher.drain()
        seen |= changes.paths
        if changes.overflow:
            return changes
        if len(seen) >= wanted:
            time.sleep(0.1)
            return Changes(frozenset(seen | watcher.drain().paths), False)
        time.sleep(0.02)
    return Changes(frozenset(seen), False)


def backends() -> list[Any]:
    """Every backend that can run here: watchfiles always, inotify on Linux."""
    from providers.watch.inotify import InotifyWatcher, available

    return [ChangeWatcher, *([InotifyWatcher] if available() else [])]


@pytest.mark.parametrize("backend", backends(), ids=lambda backend: backend.__name__)
def test_real_watcher_reports_changed_paths_and_skips_git_noise(
    tmp_path: Path, backend: Callable[[Path], Backend]
) -> None:
    """Both backends leave out the same noise: objects and reflogs, here and in a nested
    repository."""
    noise = [".git/objects/pack", ".git/logs/refs", "sub/.git/objects/ab"]
    for directory in noise:
        (tmp_path / directory).mkdir(parents=True)
    watcher = backend(tmp_path)
    try:
        assert watcher.start()
        assert not watcher.drain().any
        for directory in noise:
            (tmp_path / directory / "written").write_text("x")
        (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (tmp_path / "edited.txt").write_text("x")
        changes = wait_for(watcher, wanted=2)
        assert not changes.overflow
        assert {str(tmp_path / "edited.txt"), str(tmp_path / ".git" / "HEAD")} <= changes.paths
        assert not any("/objects" in p or "/logs" in p for p in changes.paths)
    finally:
        watcher.stop()


def test_git_noise_is_objects_and_logs_at_any_depth() -> None:
    """The directories themselves count (inotify decides by them whether to watch)."""
    assert is_git_noise("/r/.git/objects")
    assert is_git_noise("/r/.git/objects/ab/cd")
    assert is_git_noise("/r/sub/.git/logs/HEAD")
    assert not is_git_noise("/r/.git/HEAD")
    assert not is_git_noise("/r/.git/refs/heads/main")
    assert not is_git_noise("/r/.git/objectsish")
    assert not is_git_noise("/r/src/objects/x.py")


@pytest.mark.parametrize(
    ("error", "exhausted"),
    [("OS file watch limit reached.", True), ("Unable to decode path", False)],
)
def test_injected_watch_function_and_death_means_overflow(
    tmp_path: Path, error: str, exhausted: bool
) -> None:
    """watchfiles' own "watch limit" error (its inotify backend, where ours cannot run) means
    no new watcher is tried; any other death allows one."""

    def fake_watch(*_: Any, **__: Any) -> Iterator[set[tuple[int, str]]]:
        yield set()
        yield {(1, str(tmp_path / "a"))}
        raise OSError(error)

    watcher = ChangeWatcher(tmp_path, watch_fn=fake_watch)
    watcher.start(timeout=2)
    deadline = time.monotonic() + 2
    while watcher.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    changes = watcher.drain()
    assert changes.overflow  # the watcher died: callers must recompute everything
    assert not watcher.alive
    assert watcher.exhausted is exhausted


def test_a_dead_watcher_may_be_replaced_three_times_and_the_refusal_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    budget = RestartBudget()
    assert [budget.take(tmp_path) for _ in range(MAX_RESTARTS + 3)] == [True] * MAX_RESTARTS + [
        False
    ] * 3
    assert caplog.text.count("starting it again") == MAX_RESTARTS
    assert caplog.text.count("going on without one") == 1


def test_lifecycle_starts_after_the_answer_and_trusts_only_a_settled_watch(
    tmp_path: Path,
) -> None:
    made = WatcherBox()
    watch = WatchLifecycle((tmp_path,), made)
    assert watch.poll().status is WatchStatus.OFF  # no answer yet: nothing starts
    assert made.made == []
    watch.answer_computed()
    watch.answer_sent()
    assert len(made.made) == 1 and made.made[0].start_timeouts == [0.0]
    made.made[0].ready = False
    assert watch.poll().status is WatchStatus.SETTING_UP
    made.made[0].ready = True
    made.made[0].pending.add("/before")
    first = watch.poll()
    assert first.status is WatchStatus.JUST_READY and not first.complete
    made.made[0].pending.add("/x")
    report = watch.poll()
    assert report.complete and report.changes.paths == {"/x"}
    watch.stop()
    assert made.made[0].stopped


def test_lifecycle_starts_itself_when_no_one_says_the_answer_went_out(tmp_path: Path) -> None:
    made = WatcherBox()
    watch = WatchLifecycle((tmp_path, tmp_path / "gitdir"), made)
    watch.answer_computed()
    assert watch.poll().status is WatchStatus.JUST_READY  # both started by the poll
    assert [w.root for w in made.made] == [tmp_path, tmp_path / "gitdir"]


def test_lifecycle_replaces_a_dead_watch_at_most_three_times(tmp_path: Path) -> None:
    """docs/performance.md: a dead watch is replaced after the next answer, at most three times."""
    made = WatcherBox()
    watch = WatchLifecycle((tmp_path,), made)
    watch.answer_computed()
    watch.answer_sent()
    for replaced in range(MAX_RESTARTS + 1):
        assert watch.poll().status in (WatchStatus.JUST_READY, WatchStatus.READY)
        made.made[-1].alive = False
        assert watch.poll().status is WatchStatus.OFF
        assert made.made[-1].stopped
        watch.answer_sent()
        assert len(made.made) == min(2 + replaced, 1 + MAX_RESTARTS)
    assert not watch.watching
    assert watch.poll().status is WatchStatus.OFF


def test_lifecycle_gives_up_on_a_watch_that_never_gets_in_place(tmp_path: Path) -> None:
    made = WatcherBox()
    watch = WatchLifecycle((tmp_path,), made, ready_timeout=0.05)
    watch.answer_computed()
    watch.answer_sent()
    made.made[0].ready = False
    assert watch.poll().status is WatchStatus.SETTING_UP
    time.sleep(0.1)
    assert watch.poll().status is WatchStatus.OFF
    assert made.made[0].stopped and not watch.watching


def test_lifecycle_without_a_factory_is_always_off(tmp_path: Path) -> None:
    watch = WatchLifecycle((tmp_path,), None)
    watch.answer_computed()
    watch.answer_sent()
    assert watch.poll().status is WatchStatus.OFF and not watch.watching


def test_inotify_watcher_sees_new_directories_and_their_contents(tmp_path: Path) -> None:
    """The default watcher on Linux: a directory made after the watch is watched, and what
    was made in it before its watch is reported too."""
    from providers.watch.inotify import InotifyWatcher, available

    if not available():
        pytest.skip("no inotify here")
    (tmp_path / "a").mkdir()
    watcher = InotifyWatcher(tmp_path)
    try:
        assert watcher.start(5)
        (tmp_path / "a" / "f.txt").write_text("x")
        (tmp_path / "new" / "deep").mkdir(parents=True)
        (tmp_path / "new" / "deep" / "early.txt").write_text("x")
        deadline = time.monotonic() + 3
        seen: set[str] = set()
        wanted = {str(tmp_path / "a" / "f.txt"), str(tmp_path / "new" / "deep" / "early.txt")}
        while not wanted <= seen and time.monotonic() < deadline:
            seen |= watcher.drain().paths
            time.sleep(0.02)
        assert wanted <= seen
        (tmp_path / "new" / "deep" / "late.txt").write_text("x")
        time.sleep(0.2)
        assert str(tmp_path / "new" / "deep" / "late.txt") in watcher.drain().paths
        (tmp_path / ".git" / "objects" / "ab").mkdir(parents=True)
        (tmp_path / ".git" / "objects" / "ab" / "obj").write_text("x")
        time.sleep(0.2)
        assert not any("/objects/ab/" in p for p in watcher.drain().paths)
    finally:
        watcher.stop()


def test_inotify_set_up_never_stalls_another_thread(tmp_path: Path) -> None:
    """Issue 12: setting up the watch never holds up a turn (watchfiles holds the interpreter
    lock while it walks: 1.8 s at 300k files, measured)."""
    import threading

    from providers.watch.inotify import InotifyWatcher, available

    if not available():
        pytest.skip("no inotify here")
    for i in range(3000):
        (tmp_path / f"d{i % 300}" / f"e{i}").mkdir(parents=True)
    worst = [0.0]
    done = threading.Event()

    def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            worst[0] = max(worst[0], now - last)
            last = now

    thread = threading.Thread(target=ticker)
    thread.start()
    watcher = InotifyWatcher(tmp_path)
    try:
        assert watcher.start(30)
    finally:
        done.set()
        thread.join()
        watcher.stop()
    assert watcher.watched == 3301
    assert worst[0] < 0.1
