"""Helpers for the git status tests: run real git, build requests, feed watchers."""

from __future__ import annotations

import os
import queue
import stat
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, Contribution, ModelTarget
from providers.git_status.provider import GitStatusProvider
from providers.watch import ChangeWatcher

REAL_GIT = "git"


def git_bytes(repo: Path, *args: str, check: bool = True) -> bytes:
    """Run the real git in ``repo``; raw stdout."""
    result = subprocess.run(
        [REAL_GIT, "-C", str(repo), *args],
        check=False,
        capture_output=True,
        env={**os.environ, "GIT_EDITOR": "true"},
    )
    if check and result.returncode != 0:
        raise AssertionError(f"git {args} failed: {result.stderr.decode()}")
    return result.stdout


def git(repo: Path, *args: str, check: bool = True) -> str:
    """Run the real git in ``repo``; stdout as text."""
    return git_bytes(repo, *args, check=check).decode("utf-8", "surrogateescape")


def porcelain(repo: Path, *extra: str) -> bytes:
    """What the provider parses, from the real git."""
    return git_bytes(repo, "status", "--porcelain=v2", "--branch", "--show-stash", "-z", *extra)


def commit_file(repo: Path, name: str, text: str, message: str | None = None) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(repo, "add", "--", name)
    git(repo, "commit", "-q", "-m", message or f"add {name}")


def clone_via_origin(tmp_path: Path, repo: Path) -> tuple[Path, Path]:
    """``repo`` pushed to a bare ``origin.git`` and cloned from there: (origin, clone)."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return origin, clone


def request(
    working_directory: Path, budget: int = 800, touched: tuple[str, ...] = ()
) -> ContextRequest:
    return ContextRequest(
        token_budget=budget,
        working_directory=str(working_directory),
        model_target=ModelTarget("test-model"),
        files_touched=touched,
    )


def text_of(contribution: Contribution) -> str:
    assert len(contribution.sections) == 1, contribution
    return contribution.sections[0].text


class Feed:
    """Feeds change batches to real :class:`ChangeWatcher` threads (watchfiles' own test style)."""

    def __init__(self) -> None:
        self.roots: list[Path] = []
        self._queue: queue.Queue[set[tuple[int, str]]] = queue.Queue()

    def factory(self, root: Path) -> ChangeWatcher:
        """A watcher already in place, so counts of git runs are exact from the first turn."""
        self.roots.append(root)
        watcher = ChangeWatcher(root, watch_fn=self._watch)
        assert watcher.start()
        return watcher

    def change(self, path: Path) -> None:
        """Report ``path`` changed; returns once a watcher has recorded it."""
        self._queue.put({(2, str(path))})
        self._queue.join()

    def _watch(self, root: Path, *, stop_event: threading.Event, **_: Any) -> Iterator[set[Any]]:
        yield set()
        while not stop_event.is_set():
            try:
                batch = self._queue.get(timeout=0.01)
            except queue.Empty:
                yield set()
                continue
            yield batch
            self._queue.task_done()


def collect(provider: GitStatusProvider, wd: Path, budget: int = 800, **kw: Any) -> Contribution:
    return contribute(provider, request(wd, budget, **kw), FallbackCounter())


def write_script(path: Path, body: str) -> Path:
    """An executable shell script (a fake or wrapping git)."""
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def counting_git(tmp_path: Path) -> tuple[Path, Path]:
    """A git wrapper that appends one line per run to a log: (wrapper, log)."""
    log = tmp_path / "git-runs.log"
    real = subprocess.run(
        ["sh", "-c", "command -v git"], capture_output=True, text=True, check=True
    ).stdout.strip()
    wrapper = write_script(tmp_path / "counting-git", f'echo "$*" >> "{log}"\nexec "{real}" "$@"\n')
    return wrapper, log


def runs(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []
