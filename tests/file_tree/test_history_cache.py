"""Issue 22 item 3: the mined history is kept between sessions, so a first answer ranks with it.

The cache is a directory of ours under ``$XDG_CACHE_HOME`` (or ``~/.cache``): bounded,
safe to delete, never trusted blindly, never followed through a symlink, never in the
repository. Every test runs with a temporary ``HOME`` (``git_env``).
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from providers.file_tree.history import build
from providers.file_tree.history_cache import PLACE, HistoryCache, cache_home


def test_bounds_per_repository_and_in_all_evict_the_least_recently_used(tmp_path: Path) -> None:
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


def test_a_symlink_planted_for_our_directory_is_never_followed(tmp_path: Path) -> None:
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


def test_where_the_cache_lives() -> None:
    """``$XDG_CACHE_HOME`` when absolute (the XDG spec ignores a relative one), else
    ``~/.cache``."""
    assert cache_home({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == Path("/x")
    assert cache_home({"XDG_CACHE_HOME": "rel", "HOME": "/h"}) == Path("/h/.cache")
    assert cache_home({"XDG_CACHE_HOME": "", "HOME": "/h"}) == Path("/h/.cache")
    assert cache_home({}) is None
    assert HistoryCache(None).load(Path("/r"), "c" * 40) is None
