"""Issue 27 item 5, end to end with the real watcher: what git ignores is neither listed
nor watched, and a folder a ``.gitignore`` edit lets in is listed and then kept current
(its watch added), with no restart."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from providers.file_tree.provider import FileTreeProvider
from providers.watch.inotify import available
from tests.file_tree.helpers import collect, init_repo

pytestmark = pytest.mark.skipif(not available(), reason="no inotify here")


def shows(provider: FileTreeProvider, repo: Path, name: str, seconds: float = 5.0) -> bool:
    """Whether ``name`` shows in the tree within ``seconds`` (a turn every 50 ms)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if name in collect(provider, repo, budget=4000):
            return True
        time.sleep(0.05)
    return False


def test_an_un_ignored_folder_is_listed_and_then_watched(
    make_provider: Callable[..., FileTreeProvider], tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    for rel in ("src/app.py", "node_modules/left/index.js", "node_modules/pad/index.js"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x\n")
    (repo / ".gitignore").write_text("node_modules/\n")
    init_repo(repo)
    provider = make_provider()  # the default watcher: inotify, the process's hub
    assert "node_modules" not in collect(provider, repo, budget=4000)
    provider.answer_sent()
    time.sleep(0.5)  # the watch gets in place
    collect(provider, repo, budget=4000)
    (repo / "node_modules" / "hidden").mkdir()  # ignored: no listing, no watch
    (repo / "node_modules" / "hidden" / "x.js").write_text("x\n")
    assert not shows(provider, repo, "hidden", seconds=0.5)
    (repo / ".gitignore").write_text("")
    assert shows(provider, repo, "node_modules")
    (repo / "node_modules" / "arrived").mkdir()
    (repo / "node_modules" / "arrived" / "late.js").write_text("x\n")
    assert shows(provider, repo, "arrived")  # seen by the watch the edit added
