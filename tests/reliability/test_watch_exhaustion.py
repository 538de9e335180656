"""Issue 15 item 4: when inotify watches run out, a watch that only sees part of the tree is
noticed (the watch on a new directory fails) and the providers fall back to their checks
without a watch, saying so once; a change shows on the next turn. Both tests run the watcher
production runs (``default_watcher``: inotify on Linux)."""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.file_tree.provider import FileTreeProvider
from providers.watch import Watcher, WatchLifecycle, WatchStatus, default_watcher
from tests.conftest import git

LIMIT = Path("/proc/sys/fs/inotify/max_user_watches")


def watches_in_use() -> int:
    """inotify watches held by our user: the limit counts per user (and user namespace)."""
    own_ns = os.readlink("/proc/self/ns/user")
    total = 0
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            if os.readlink(f"{proc}/ns/user") != own_ns or os.stat(proc).st_uid != os.getuid():
                continue
        except OSError:
            continue
        for info in glob.glob(f"{proc}/fdinfo/*"):
            try:
                with open(info) as handle:
                    total += sum(1 for line in handle if line.startswith("inotify wd:"))
            except OSError:
                continue
    return total


@pytest.fixture
def limit() -> Iterator[Callable[[int], None]]:
    if not os.access(LIMIT, os.W_OK):
        pytest.skip("fs.inotify.max_user_watches is not writable here (needs root)")
    before = LIMIT.read_text()

    def set_headroom(spare: int) -> None:
        LIMIT.write_text(str(watches_in_use() + spare))

    try:
        yield set_headroom
    finally:
        LIMIT.write_text(before)


def request(repo: Path) -> ContextRequest:
    return ContextRequest(2000, str(repo), ModelTarget("m"))


def tree_text(provider: FileTreeProvider, repo: Path) -> str:
    return contribute(provider, request(repo), FallbackCounter()).sections[0].text


def test_a_partial_watch_is_noticed_and_the_change_shows_next_turn(
    tmp_path: Path, limit: Callable[[int], None], caplog: pytest.LogCaptureFixture
) -> None:
    repo = tmp_path / "repo"
    for i in range(5):
        (repo / f"d{i}").mkdir(parents=True)
        (repo / f"d{i}" / "f.py").write_text("x\n")
    git(repo, "init", "-q")
    provider = FileTreeProvider()
    try:
        tree_text(provider, repo)
        provider.answer_sent()
        deadline = time.monotonic() + 10
        while provider._state is not None and provider._state.live._watch.poll().status not in (
            WatchStatus.READY,
        ):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        tree_text(provider, repo)  # the watch is in place: warm from here on
        limit(0)  # no watch left for anyone
        (repo / "late").mkdir()
        (repo / "late" / "new.py").write_text("x\n")
        time.sleep(0.3)  # the watcher reports the new directory
        turns = 1
        while "new.py" not in tree_text(provider, repo):
            turns += 1
            assert turns < 5, "the change never showed"
            time.sleep(0.1)
        assert turns == 1
        assert "cannot see everything" in caplog.text
        assert caplog.text.count("fs.inotify.max_user_watches") == 1
        (repo / "late" / "second.py").write_text("x\n")
        time.sleep(0.05)
        assert "second.py" in tree_text(provider, repo)  # directory times, no watch
    finally:
        provider.close()


def test_a_watch_that_cannot_start_for_lack_of_watches_is_not_retried(
    tmp_path: Path, limit: Callable[[int], None], caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "tree"
    for i in range(20):
        (root / f"d{i}").mkdir(parents=True)
    made: list[Watcher] = []

    def factory(path: Path) -> Watcher:
        made.append(default_watcher(path))
        return made[-1]

    watch = WatchLifecycle((root,), factory, start_timeout=5.0)
    limit(5)
    try:
        watch.answer_computed()
        watch.answer_sent()
        assert watch.poll().status is WatchStatus.OFF
        watch.answer_sent()
        assert len(made) == 1 and getattr(made[0], "exhausted", False) and not watch.watching
        assert "starting it again" not in caplog.text
        assert caplog.text.count("fs.inotify.max_user_watches") == 1
    finally:
        watch.stop()
