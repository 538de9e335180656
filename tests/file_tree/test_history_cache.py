"""Issue 22 item 3: the mined history is kept between sessions, so a first answer ranks with it.

The cache is a directory of ours under ``$XDG_CACHE_HOME`` (or ``~/.cache``): bounded,
safe to delete, never trusted blindly, never followed through a symlink, never in the
repository. Every test runs with a temporary ``HOME`` (``git_env``).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from providers.file_tree.history import build
from providers.file_tree.history_cache import PLACE, HistoryCache, cache_home
from providers.file_tree.miner import FIRST_COMMITS
from providers.file_tree.provider import FileTreeProvider
from tests.conftest import REPO_ROOT
from tests.file_tree.helpers import (
    CountingRunner,
    add_commits,
    collect,
    git,
    history_runs,
    init_repo,
    mined,
)
from tests.support.files import write

Make = Callable[..., FileTreeProvider]
COMMITS = FIRST_COMMITS + 40
"""More than a first answer mines without a cache: only a kept history has them all."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "README.md")
    init_repo(root)
    add_commits(root, COMMITS, "pkg/deep/module{}.py", files=30)
    return root


def head_of(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").decode().strip()


def cache() -> HistoryCache:
    """The cache the providers use here (the test's HOME)."""
    return HistoryCache.from_environ(os.environ)


def first_session(make: Make, repo: Path) -> str:
    """A session that answers, sends its answer and mines all of the history (kept on
    the way); the text of a later turn."""
    provider = make({"watch": False})
    collect(provider, repo)
    provider.answer_sent()
    assert provider._state is not None
    mined(provider._state.miner, COMMITS + 1)
    return collect(provider, repo)


def test_a_new_session_answers_first_with_the_history_an_earlier_one_mined(
    make_provider: Make, repo: Path
) -> None:
    """Issue 22 item 3: the first answer of a second provider equals the later answers of
    the first, and runs no ``git log``."""
    later = first_session(make_provider, repo)
    assert cache().heads(repo) == [head_of(repo)]
    runner = CountingRunner()
    second = make_provider({"watch": False}, runner=runner)
    assert collect(second, repo) == later
    assert history_runs(runner.calls) == []
    assert second._state is not None and second._state.history is not None
    assert len(second._state.history.commits) == COMMITS + 1


def test_another_process_uses_the_kept_history(make_provider: Make, repo: Path) -> None:
    """Issue 22 item 3: the standalone command, a process of its own, finds what this one
    kept: git runs (``GIT_TRACE``) list the work tree, never the history."""
    first_session(make_provider, repo)
    trace = repo.parent / "trace.txt"
    env = {**os.environ, "GIT_TRACE": str(trace), "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "providers.file_tree", "--repo", str(repo)],
        env=env,
        capture_output=True,
        check=True,
        timeout=120,
    )
    assert b"pkg/" in done.stdout
    traced = trace.read_text()
    assert "ls-files" in traced
    assert " log " not in traced and "merge-base" not in traced


def test_a_history_kept_for_an_ancestor_is_extended_with_the_new_commits(
    make_provider: Make, repo: Path
) -> None:
    """Issue 22 item 3: "a cache for an ancestor of HEAD is reused and extended with only
    the new commits": only ``old..HEAD`` is mined, and the result kept."""
    first_session(make_provider, repo)
    old = head_of(repo)
    add_commits(repo, 3, "pkg/new{}.py")
    new = head_of(repo)
    runner = CountingRunner()
    provider = make_provider({"watch": False}, runner=runner)
    collect(provider, repo)
    assert provider._state is not None
    mined(provider._state.miner, COMMITS + 4)
    runs = history_runs(runner.calls)
    assert runs == [f"merge-base --is-ancestor {old} {new}", runs[1]]
    assert runs[1].endswith(f" {old}..{new} --")
    eventually(lambda: cache().heads(repo) == [new, old])


def test_a_history_kept_for_another_line_of_commits_is_not_used(
    make_provider: Make, repo: Path
) -> None:
    """Issue 22 item 3: a kept HEAD that is no ancestor (a rebase, a repository cloned
    anew at the same path) is not extended: HEAD is mined afresh."""
    first_session(make_provider, repo)
    git(repo, "reset", "-q", "--hard", "HEAD~5")
    add_commits(repo, 2, "other{}.py")
    runner = CountingRunner()
    provider = make_provider({"watch": False}, runner=runner)
    collect(provider, repo)
    runs = history_runs(runner.calls)
    assert runs[0].startswith("merge-base --is-ancestor") and "log" in runs[1]
    assert f"--max-count={FIRST_COMMITS}" in runs[1]


def test_bounds_per_repository_and_in_all_evict_the_least_recently_used(tmp_path: Path) -> None:
    """Issue 22 item 3: "bounded in size (total and per repository; evict oldest)": by
    HEADs and bytes per repository and bytes in all, a read counting as a use."""
    small = HistoryCache(tmp_path / "cache", per_repository=2, total_bytes=10**9)
    a, b = tmp_path / "a", tmp_path / "b"
    heads = [f"{i:040x}" for i in range(1, 5)]
    for head in heads[:3]:
        small.store(a, head, build([["x.py"]]))
        time.sleep(0.05)  # file times are coarse
    assert small.heads(a) == [heads[2], heads[1]]  # the oldest went
    assert small.load(a, heads[1]) is not None  # used: now the most recent
    time.sleep(0.05)
    small.store(a, heads[3], build([["y.py"]]))
    assert small.heads(a) == [heads[3], heads[1]]

    directory = tmp_path / "cache" / Path(*PLACE)
    size = max(p.stat().st_size for p in directory.iterdir())
    tight = HistoryCache(tmp_path / "cache", per_repository=2, total_bytes=3 * size)
    time.sleep(0.05)
    tight.store(b, heads[0], build([["z.py"]]))
    time.sleep(0.05)
    tight.store(b, heads[1], build([["z.py"]]))
    assert tight.heads(b) == [heads[1], heads[0]]
    assert tight.heads(a) == [heads[3]]  # in all, the least recently used went first
    assert sum(p.stat().st_size for p in directory.iterdir()) <= 3 * size

    per_bytes = HistoryCache(tmp_path / "cache", repository_bytes=size + 16)
    time.sleep(0.05)
    per_bytes.store(b, heads[2], build([["z.py"]]))
    assert per_bytes.heads(b) == [heads[2]]


def kept_file() -> Path:
    directory = cache().directory
    assert directory is not None
    (found,) = (p for p in directory.iterdir() if p.name.endswith(".hist"))
    return found


def eventually(check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


DAMAGE = {
    "cut short": lambda data: data[: len(data) // 2],
    "empty": lambda data: b"",
    "a byte changed": lambda data: data[:-20] + bytes([data[-20] ^ 0x55]) + data[-19:],
    "garbage": lambda data: os.urandom(len(data)),
    "another format": lambda data: data.replace(b"history 1 ", b"history 0 ", 1),
    "another root": lambda data: data.replace(b'"root": "', b'"root": "/elsewhere', 1),
}


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_a_damaged_or_foreign_file_is_ignored_and_rewritten(
    make_provider: Make, repo: Path, damage: str
) -> None:
    """Issue 22 item 3: "a missing, truncated, corrupt or foreign file is ignored and
    rewritten"."""
    first_session(make_provider, repo)
    kept = kept_file()
    kept.write_bytes(DAMAGE[damage](kept.read_bytes()))
    assert cache().load(repo, head_of(repo)) is None
    runner = CountingRunner()
    provider = make_provider({"watch": False}, runner=runner)
    collect(provider, repo)
    assert any(c.startswith("log") for c in runner.calls)  # mined, as without a cache
    provider.answer_sent()
    assert provider._state is not None
    mined(provider._state.miner, COMMITS + 1)
    eventually(lambda: cache().load(repo, head_of(repo)) is not None)  # kept again, whole


def test_a_symlink_planted_for_a_file_is_never_followed(make_provider: Make, repo: Path) -> None:
    """Issue 22 item 3: "never follows a symlink planted there": not read through, and
    replaced (not written through) when the history is kept again."""
    first_session(make_provider, repo)
    kept = kept_file()
    elsewhere = repo.parent / "elsewhere.hist"
    elsewhere.write_bytes(kept.read_bytes())  # a valid file: still not read through a link
    kept.unlink()
    kept.symlink_to(elsewhere)
    assert cache().load(repo, head_of(repo)) is None
    cache().store(repo, head_of(repo), build([["a.py"]]))
    assert not kept.is_symlink() and stat.S_ISREG(kept.lstat().st_mode)
    assert elsewhere.read_bytes() != kept.read_bytes()  # the link was replaced, not written


def test_a_symlink_planted_for_our_directory_is_never_followed(tmp_path: Path) -> None:
    """Issue 22 item 3: our directory made a link to elsewhere: the cache is not used."""
    home = tmp_path / "cache"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home.mkdir()
    (home / PLACE[0]).symlink_to(elsewhere)
    planted = HistoryCache(home)
    planted.store(tmp_path / "r", "a" * 40, build([["a.py"]]))
    assert list(elsewhere.iterdir()) == []
    assert planted.load(tmp_path / "r", "a" * 40) is None
    assert planted.heads(tmp_path / "r") == []


def test_only_the_user_can_read_the_cache(tmp_path: Path) -> None:
    """Issue 22 item 3: "only its user can read it", whatever the umask."""
    old = os.umask(0)
    try:
        HistoryCache(tmp_path / "cache").store(tmp_path / "r", "b" * 40, build([["a.py"]]))
    finally:
        os.umask(old)
    directory = tmp_path / "cache" / Path(*PLACE)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(directory.parent.stat().st_mode) == 0o700
    (kept,) = directory.iterdir()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_the_cache_is_never_inside_the_repository(
    make_provider: Make, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22 item 3: "never inside the repository": a repository in the home directory
    (dotfiles), or a cache home set inside one, keeps no history."""
    monkeypatch.setenv("HOME", str(repo))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    first_session(make_provider, repo)
    assert not (repo / ".cache").exists()
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo / "pkg" / "cache"))
    first_session(make_provider, repo)
    assert not (repo / "pkg" / "cache").exists()
    assert git(repo, "status", "--porcelain") == b""


def test_where_the_cache_lives() -> None:
    """Issue 22 item 3: ``$XDG_CACHE_HOME`` when absolute (the XDG spec ignores a relative
    one), else ``~/.cache``."""
    assert cache_home({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == Path("/x")
    assert cache_home({"XDG_CACHE_HOME": "rel", "HOME": "/h"}) == Path("/h/.cache")
    assert cache_home({"XDG_CACHE_HOME": "", "HOME": "/h"}) == Path("/h/.cache")
    assert cache_home({}) is None
    assert HistoryCache(None).load(Path("/r"), "c" * 40) is None
