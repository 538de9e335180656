"""Issue 27 item 5: what git ignores is never watched, one inotify instance serves a whole
process, and a repository's watches are capped.

Real inotify, real files, real git; watches are counted where the kernel lists them
(``inotify wd:`` lines in ``/proc/self/fdinfo``).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.repository.ignored_dirs import IgnoredDirs
from providers.watch import Changes, WatchLifecycle, WatchStatus
from providers.watch.inotify import MAX_WATCHES, MOST_WATCHES, InotifyWatcher, available, watch_cap
from providers.watch.inotify_hub import Hub, process_hub

pytestmark = pytest.mark.skipif(not available(), reason="no inotify here")

IGNORED_DIRS = 6000


def kernel_watches(fd: int) -> int:
    """The watches the kernel holds on the inotify instance ``fd`` (0 once the hub closed
    it: a hub with no watcher left closes its fd from its own thread, at any moment)."""
    try:
        text = Path(f"/proc/self/fdinfo/{fd}").read_text()
    except FileNotFoundError:
        return 0
    return sum(line.startswith("inotify wd:") for line in text.splitlines())


def inotify_instances() -> int:
    """The inotify instances this process has open."""
    found = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            found += os.readlink(f"/proc/self/fd/{name}") == "anon_inode:inotify"
        except OSError:
            continue
    return found


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def watched_dirs(root: Path, *, skip: str) -> int:
    """The directories a watch of ``root`` should hold: all but ``skip`` and below, and
    git's noise (objects, logs)."""
    count = 0
    for directory, subdirs, _ in os.walk(root):
        count += 1
        rel = os.path.relpath(directory, root)
        subdirs[:] = [
            d
            for d in subdirs
            if os.path.normpath(os.path.join(rel, d)) != skip
            and not (rel.endswith(".git") and d in ("objects", "logs"))
        ]
    return count


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a 6,000-directory ``node_modules`` that git ignores."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".gitignore").write_text("node_modules/\n")
    for i in range(20):
        (root / "src" / f"m{i}").mkdir(parents=True)
        (root / "src" / f"m{i}" / "a.py").write_text("x\n")
    for i in range(IGNORED_DIRS):
        (root / "node_modules" / f"p{i // 100}" / f"d{i % 100}").mkdir(parents=True)
    return root


@pytest.fixture
def hub() -> Iterator[Hub]:
    """A hub of the test's own, so that counts are its alone."""
    yield Hub()


def watcher(root: Path, hub: Hub, **options: int) -> InotifyWatcher:
    made = InotifyWatcher(root, hub=hub, **options)
    made.leave_out(lambda: IgnoredDirs(root))
    return made


def settle(watchers: list[InotifyWatcher], seconds: float = 3.0) -> Changes:
    """Everything the watchers report within a moment, merged."""
    time.sleep(0.3)
    deadline = time.monotonic() + seconds
    paths: set[str] = set()
    overflow = False
    while time.monotonic() < deadline:
        for w in watchers:
            drained = w.drain()
            paths |= drained.paths
            overflow |= drained.overflow
        if paths or overflow:
            time.sleep(0.1)
            for w in watchers:
                drained = w.drain()
                paths |= drained.paths
                overflow |= drained.overflow
            break
        time.sleep(0.02)
    return Changes(frozenset(paths), overflow)


def wait_for_overflow(w: InotifyWatcher) -> None:
    """Until ``w`` says "recompute everything" (a walk after a rule change is done)."""
    deadline = time.monotonic() + 5
    while not w.drain().overflow:
        assert time.monotonic() < deadline, "no overflow reported"
        time.sleep(0.05)


def wait_until_gone(w: InotifyWatcher) -> None:
    deadline = time.monotonic() + 3
    while w.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not w.alive


def test_an_ignored_tree_of_6000_directories_gets_no_watch(repo: Path, hub: Hub) -> None:
    """Nothing under ``node_modules/`` is watched; everything else is, ``.git`` included
    (git_status reads refs and the index from it)."""
    w = watcher(repo, hub)
    try:
        assert w.start(10)
        expected = watched_dirs(repo, skip="node_modules")
        assert expected < 100  # the 6,000 ignored ones are not in it
        assert kernel_watches(hub.fd) == w.watched == expected
        assert os.path.isdir(repo / ".git" / "refs" / "heads")
    finally:
        w.stop()


def test_a_change_in_an_ignored_directory_reports_nothing(repo: Path, hub: Hub) -> None:
    w = watcher(repo, hub)
    try:
        assert w.start(10)
        before = kernel_watches(hub.fd)
        (repo / "node_modules" / "p3" / "d7" / "index.js").write_text("x\n")
        (repo / "node_modules" / "p3" / "new" / "deep").mkdir(parents=True)
        (repo / "node_modules" / "p3" / "new" / "deep" / "f.js").write_text("x\n")
        (repo / "src" / "m1" / "a.py").write_text("edited\n")
        changes = settle([w])
        assert not changes.overflow
        assert changes.paths == {str(repo / "src" / "m1" / "a.py")}
        assert kernel_watches(hub.fd) == before  # no watch for the new ignored folders
    finally:
        w.stop()


def test_a_new_directory_git_ignores_is_not_watched(repo: Path, hub: Hub) -> None:
    """``mkdir build`` with ``build/`` ignored: its creation shows, its insides do not."""
    (repo / ".gitignore").write_text("node_modules/\nbuild/\n")
    w = watcher(repo, hub)
    try:
        assert w.start(10)
        before = w.watched
        (repo / "build" / "out").mkdir(parents=True)
        assert settle([w]).paths == {str(repo / "build")}
        (repo / "build" / "out" / "x.o").write_text("x")
        (repo / "src" / "kept").mkdir()
        assert settle([w]).paths == {str(repo / "src" / "kept")}
        assert w.watched == before + 1
    finally:
        w.stop()


def test_un_ignoring_a_directory_watches_it_and_reports_overflow(repo: Path, hub: Hub) -> None:
    """An edit to a ``.gitignore`` reads the rules again: the directories it lets in are
    watched, and since what changed in them went unseen, the provider recomputes all."""
    w = watcher(repo, hub)
    try:
        assert w.start(10)
        before = w.watched
        (repo / ".gitignore").write_text("node_modules/p1/\n")
        wait_for_overflow(w)
        assert w.watched == before + 1 + 59 + 59 * 100  # node_modules, p0..p59 but p1
        assert kernel_watches(hub.fd) == w.watched
        (repo / "node_modules" / "p2" / "d5" / "now.js").write_text("x\n")
        (repo / "node_modules" / "p1" / "d5" / "still-ignored.js").write_text("x\n")
        assert settle([w]).paths == {str(repo / "node_modules" / "p2" / "d5" / "now.js")}
        (repo / ".gitignore").write_text("node_modules/\n")  # ignored again: watches go
        deadline = time.monotonic() + 5
        while w.watched != before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert w.watched == before
        assert kernel_watches(hub.fd) == before
    finally:
        w.stop()


def test_info_exclude_is_an_ignore_file_too(repo: Path, hub: Hub) -> None:
    (repo / ".gitignore").unlink()
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("node_modules\n")
    w = watcher(repo, hub)
    try:
        assert w.start(10)
        before = w.watched
        assert before == watched_dirs(repo, skip="node_modules")
        (repo / ".git" / "info" / "exclude").write_text("")
        wait_for_overflow(w)
        assert w.watched == before + IGNORED_DIRS + 61
    finally:
        w.stop()


def test_a_tracked_file_in_an_ignored_directory_stays_watched(repo: Path, hub: Hub) -> None:
    """git shows changes to a tracked file wherever it is (``git add -f``): its folders are
    watched, the rest of the ignored tree is not."""
    (repo / "node_modules" / "p0" / "d1" / "vendored.js").write_text("x\n")
    git(repo, "add", "-f", "node_modules/p0/d1/vendored.js")
    w = watcher(repo, hub)
    try:
        assert w.start(10)
        assert w.watched == watched_dirs(repo, skip="node_modules") + 3
        (repo / "node_modules" / "p0" / "d1" / "vendored.js").write_text("edited\n")
        (repo / "node_modules" / "p0" / "d2" / "other.js").write_text("x\n")
        changes = settle([w])
        assert changes.paths == {str(repo / "node_modules" / "p0" / "d1" / "vendored.js")}
    finally:
        w.stop()


def test_two_subscribers_share_one_instance_and_one_watch_per_directory(
    repo: Path, hub: Hub
) -> None:
    instances = inotify_instances()
    first, second = watcher(repo, hub), watcher(repo, hub)
    try:
        assert first.start(10) and second.start(10)
        assert inotify_instances() == instances + 1
        assert first.watched == second.watched == kernel_watches(hub.fd) == hub.watches
        (repo / "src" / "m2" / "b.py").write_text("x\n")
        wanted = {str(repo / "src" / "m2" / "b.py")}
        assert settle([first]).paths == wanted
        assert settle([second]).paths == wanted  # each subscriber hears every event
    finally:
        first.stop()
        second.stop()


def test_stopping_one_subscriber_keeps_the_others_events(repo: Path, hub: Hub) -> None:
    first, second = watcher(repo, hub), watcher(repo, hub)
    try:
        assert first.start(10) and second.start(10)
        shared = kernel_watches(hub.fd)
        first.stop()
        wait_until_gone(first)
        assert first.watched == 0
        assert kernel_watches(hub.fd) == shared == second.watched  # still held by second
        (repo / "src" / "m3" / "c.py").write_text("x\n")
        (repo / "src" / "m3" / "sub").mkdir()
        (repo / "src" / "m3" / "sub" / "d.py").write_text("x\n")
        wanted = {str(repo / "src" / "m3" / "c.py"), str(repo / "src" / "m3" / "sub" / "d.py")}
        seen: set[str] = set()
        deadline = time.monotonic() + 3
        while not wanted <= seen and time.monotonic() < deadline:
            seen |= second.drain().paths
            time.sleep(0.02)
        assert wanted <= seen
    finally:
        second.stop()
    wait_until_gone(second)
    deadline = time.monotonic() + 2
    while hub.fd >= 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert hub.fd == -1  # no one left: the instance is closed


def test_watchers_of_one_process_share_its_one_instance(tmp_path: Path) -> None:
    """The default hub: three providers' watchers of two repositories, one instance."""
    roots = [tmp_path / "a", tmp_path / "b"]
    for root in roots:
        (root / "src").mkdir(parents=True)
    before = inotify_instances()
    hub_was_open = process_hub().fd >= 0
    made = [InotifyWatcher(root) for root in (*roots, roots[0])]
    try:
        assert all(w.start(5) for w in made)
        assert inotify_instances() == before + (0 if hub_was_open else 1)
    finally:
        for w in made:
            w.stop()


def test_a_tree_past_the_watch_cap_is_not_watched_and_the_lifecycle_gives_up(
    repo: Path, hub: Hub
) -> None:
    """docs/performance.md: at most the cap's directories a watcher; past it the watcher
    stops as exhausted, holds nothing, and the provider checks another way for the session."""
    cap = watched_dirs(repo, skip="node_modules") - 1
    capped = watcher(repo, hub, max_watches=cap)
    assert not capped.start(10)
    assert capped.exhausted and capped.drain().overflow
    wait_until_gone(capped)
    assert capped.watched == 0
    assert hub.fd == -1 or kernel_watches(hub.fd) == 0
    exact = watcher(repo, hub, max_watches=cap + 1)
    try:
        assert exact.start(10) and not exact.exhausted
    finally:
        exact.stop()
    watch = WatchLifecycle(
        (repo,),
        lambda root: InotifyWatcher(root, hub=hub, max_watches=cap),
        ignored=lambda: IgnoredDirs(repo),
        start_timeout=10,
    )
    watch.answer_computed()
    watch.answer_sent()
    assert watch.poll().status is WatchStatus.OFF
    assert not watch.watching  # exhausted: no new watcher is tried


@pytest.mark.parametrize(
    ("limit", "cap"),
    [
        ("8192", MAX_WATCHES),  # an old default: most watches left to other tools
        ("65536", MAX_WATCHES),
        ("192530", 24_066),  # an eighth of what the user may hold
        ("1048576", MOST_WATCHES),
        ("not a number", MAX_WATCHES),
    ],
)
def test_the_watch_cap_follows_the_users_limit(tmp_path: Path, limit: str, cap: int) -> None:
    """docs/performance.md: a watcher's cap is an eighth of fs.inotify.max_user_watches,
    10,000 to 50,000 (10,000 when the limit cannot be read)."""
    limit_file = tmp_path / "max_user_watches"
    limit_file.write_text(limit + "\n")
    assert watch_cap(str(limit_file)) == cap
    assert watch_cap(str(tmp_path / "missing")) == MAX_WATCHES


def test_the_lifecycle_passes_the_ignore_rules_to_the_watcher(repo: Path, hub: Hub) -> None:
    watch = WatchLifecycle(
        (repo,),
        lambda root: InotifyWatcher(root, hub=hub),
        ignored=lambda: IgnoredDirs(repo),
        start_timeout=10,
    )
    try:
        watch.answer_computed()
        watch.answer_sent()
        assert watch.poll().status is WatchStatus.JUST_READY
        assert kernel_watches(hub.fd) == watched_dirs(repo, skip="node_modules")
    finally:
        watch.stop()
