"""Fresh every turn, and a turn where nothing changed runs no git process at all.

git runs are counted for real: the ``git`` attribute points at a wrapper
script that logs each invocation before exec'ing the real git.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.git_status.freshness import watch_roots
from providers.git_status.git import Git
from providers.git_status.provider import GitStatusProvider
from providers.watch import Changes, ChangeWatcher
from tests.git_status.repos import Feed, collect, commit_file, counting_git, git, runs, text_of

Make = Callable[..., GitStatusProvider]


ALONGSIDE = {"config", "diff", "diff-files"}
"""What may run alongside ``status``, stopped as soon as status shows it is not needed (and
then, killed early, maybe not even logged): the line counts of the index (``diff``) and the
work tree (``diff-files``), where git's global excludes file is (``config``)."""


def first_turn(log: Path) -> int:
    """How many runs the first snapshot logged: ``status`` and ``log`` (finding the
    repository runs nothing: a plain ``.git`` directory), and what runs alongside."""
    names = commands(log)
    assert sorted(set(names) - ALONGSIDE) == ["log", "status"] and len(names) - 2 <= 2, names
    return len(names)


def commands(log: Path) -> list[str]:
    """The git subcommand of each logged run (after the global options)."""
    found = []
    for line in runs(log):
        words = line.split()
        i = words.index("-C") + 2
        while words[i].startswith("-"):
            i += 2 if words[i] == "-c" else 1
        found.append(words[i])
    return found


WATCH_SET_UP = ("config", "ls-files")
"""What the watcher runs once as it starts, on its own thread, never in a turn: where the
global excludes file is, and which tracked files git ignores (their folders stay watched;
the rest of what git ignores is not watched at all)."""


def turn_commands(log: Path, first: int) -> list[str]:
    """:func:`commands` after the ``first``, without the watcher's set-up."""
    return [name for name in commands(log)[first:] if name not in WATCH_SET_UP]


def test_warm_turn_runs_no_git_with_the_real_watcher(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)})
    started = time.monotonic()
    collect(provider, repo)
    assert time.monotonic() - started < 2
    first = first_turn(log)
    provider.answer_sent()  # as the adapter does once the answer is out
    time.sleep(0.5)  # the watcher gets ready, and reports anything our own runs caused
    settled = collect(provider, repo)  # first turn with the watch in place: recomputes
    assert turn_commands(log, first) == ["status"]
    assert sorted(commands(log)[first:]) == sorted(["status", *WATCH_SET_UP])
    time.sleep(0.3)
    for _ in range(3):
        assert collect(provider, repo) is settled
    assert len(runs(log)) == first + 1 + len(WATCH_SET_UP)


def test_real_watcher_notices_an_edit(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)})
    assert "Working tree clean" in text_of(collect(provider, repo))
    first = first_turn(log)
    (repo / "README").write_text("edited by the user\n")  # not in files_touched
    deadline = time.monotonic() + 2
    while "modified: README" not in text_of(collect(provider, repo)):
        assert time.monotonic() < deadline, "the edit never showed up"
        time.sleep(0.02)
    assert "log" not in commands(log)[first:]  # HEAD did not move: no new git log


def test_fed_changes_recompute_only_what_changed(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    feed = Feed()
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)}, watcher_factory=feed.factory)
    collect(provider, repo)
    assert feed.roots == []  # the watch starts once the first answer is out
    first = first_turn(log)

    collect(provider, repo)
    assert feed.roots == [repo]
    # The turn that finds the watch in place recomputes once (a change may have
    # slipped in before it was).
    assert commands(log)[first:] == ["status"]
    collect(provider, repo)
    assert len(runs(log)) == first + 1  # nothing fed: no git

    feed.change(repo / "README")
    collect(provider, repo)
    assert commands(log)[first + 1 :] == ["status"]  # HEAD unchanged: the log is reused

    (repo / "README").write_text("edited\n")
    feed.change(repo / "README")
    assert "modified: README (+1 -1)" in text_of(collect(provider, repo))
    assert commands(log)[first + 2 :] == ["status", "diff-files"]  # its line counts

    commit_file(repo, "new.txt", "n\n", "a new commit")
    feed.change(repo / ".git" / "refs" / "heads" / "main")
    assert " a new commit\n" in text_of(collect(provider, repo))
    # Alongside status: the index's line counts (the commit rewrote the index) and
    # README's (still modified, and edited too recently to trust its stat).
    last = commands(log)[first + 4 :]
    assert sorted(set(last) - ALONGSIDE) == ["log", "status"] and "diff-files" in last


def test_budget_change_re_renders_without_git(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    for i in range(4):
        commit_file(repo, f"f{i}", "x\n", f"commit {i}")
    feed = Feed()
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)}, watcher_factory=feed.factory)
    collect(provider, repo, 800)
    first = first_turn(log)
    wide = collect(provider, repo, 800)  # the watch is in place from here on
    narrow = collect(provider, repo, 30)
    assert narrow.sections[0].tokens <= 30 < wide.sections[0].tokens
    assert "Recent commits" not in narrow.sections[0].text
    assert len(runs(log)) == first + 1


def test_stat_guard_covers_watcher_latency(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    """A watcher that has not reported yet: files_touched and HEAD/index stats still catch it."""
    feed = Feed()  # never fed: a maximally late watcher
    provider = make_provider(watcher_factory=feed.factory)
    collect(provider, repo)
    collect(provider, repo)  # the watch is in place from here on
    (repo / "README").write_text("edited by the agent\n")
    # Not touched, and the watcher is silent: the previous answer stands (no git runs).
    assert "Working tree clean" in text_of(collect(provider, repo))
    touched = ("README",)
    assert "modified: README" in text_of(collect(provider, repo, touched=touched))
    git(repo, "add", "README")  # the index changes
    assert "Staged:\n  modified: README" in text_of(collect(provider, repo))
    git(repo, "commit", "-qm", "second")  # HEAD's branch ref changes
    assert " second\n" in text_of(collect(provider, repo))


def test_watch_false_runs_status_every_turn(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper), "watch": False})
    collect(provider, repo)
    first = first_turn(log)
    for _ in range(2):
        collect(provider, repo)
    assert commands(log)[first:] == ["status", "status"]


def test_dead_watcher_means_recompute_every_turn(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    class Dead:
        alive = False

        def start(self, timeout: float = 5.0) -> bool:
            return False

        def drain(self) -> Changes:
            return Changes(frozenset(), overflow=True)

        def stop(self) -> None:
            pass

    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)}, watcher_factory=lambda root: Dead())
    for _ in range(3):
        collect(provider, repo)
    assert commands(log).count("status") == 3


def test_a_dead_watcher_is_started_again_after_the_answer(
    make_provider: Make, tmp_path: Path, repo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """watchfiles gives up on some names (not UTF-8): the next answer starts a new watch,
    and unchanged turns run no git again."""
    feed = Feed()
    made: list[ChangeWatcher] = []

    def dies(*_: Any, **__: Any) -> Iterator[set[tuple[int, str]]]:
        yield set()
        raise RuntimeError("Unable to decode path")

    def factory(root: Path) -> ChangeWatcher:
        watcher = ChangeWatcher(root, watch_fn=dies) if not made else feed.factory(root)
        made.append(watcher)
        return watcher

    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)}, watcher_factory=factory)
    collect(provider, repo)
    provider.answer_sent()  # the first watch starts, and dies
    deadline = time.monotonic() + 5
    while made[0].alive and time.monotonic() < deadline:
        time.sleep(0.01)
    collect(provider, repo)  # the dead watch cannot vouch for anything: git runs
    provider.answer_sent()  # a new watch, in place at once (the feed's)
    assert len(made) == 2 and made[1].alive
    assert "starting it again (1 of 3)" in caplog.text
    collect(provider, repo)  # the turn that finds it ready recomputes once more
    runs = commands(log).count("status")
    for _ in range(3):
        collect(provider, repo)
    assert commands(log).count("status") == runs


def test_worktree_and_submodule_watch_the_git_dirs_too(tmp_path: Path, repo: Path) -> None:
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    layout = Git("git").discover(worktree)
    assert layout is not None
    assert watch_roots(layout) == (repo / ".git", worktree)
    main_layout = Git("git").discover(repo)
    assert main_layout is not None
    assert watch_roots(main_layout) == (repo,)


def test_touched_paths_outside_the_repo_are_ignored(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    feed = Feed()
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)}, watcher_factory=feed.factory)
    collect(provider, repo)
    first = first_turn(log)
    collect(provider, repo)  # the watch is in place from here on
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("x\n")
    collect(provider, repo, touched=(str(outside),))
    assert len(runs(log)) == first + 1


def test_an_edit_where_git_ignores_runs_no_git_and_an_ignored_tracked_file_still_shows(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    """Issue 27 item 5: nothing git ignores is watched (git status shows none of it), but a
    tracked file there (``git add -f``) is, and its edit shows."""
    (repo / "node_modules" / "pkg").mkdir(parents=True)
    (repo / "node_modules" / "pkg" / "vendored.js").write_text("one\n")
    (repo / ".gitignore").write_text("node_modules/\n")
    git(repo, "add", ".gitignore")
    git(repo, "add", "-f", "node_modules/pkg/vendored.js")
    git(repo, "commit", "-qm", "vendored")
    (repo / "node_modules" / "other").mkdir()
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({"git": str(wrapper)})
    collect(provider, repo)
    provider.answer_sent()
    time.sleep(0.5)
    settled = collect(provider, repo)  # the watch is in place: recomputes once
    time.sleep(0.3)
    assert collect(provider, repo) is settled
    before = len(runs(log))
    (repo / "node_modules" / "other" / "build.js").write_text("x\n")
    time.sleep(0.3)
    assert collect(provider, repo) is settled
    assert len(runs(log)) == before  # no event, no git
    (repo / "node_modules" / "pkg" / "vendored.js").write_text("two\n")
    deadline = time.monotonic() + 3
    while "vendored.js" not in text_of(collect(provider, repo)):
        assert time.monotonic() < deadline, "the edit to the tracked file never showed up"
        time.sleep(0.05)
