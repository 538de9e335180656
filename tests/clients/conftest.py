"""Fixtures for the real-client tests: each client is skipped, with the reason, when it
cannot run here; the runs a module needs are started once, three at a time."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.clients.bridge import BridgeEnv
from tests.clients.real_clients import CLIENTS, Run, missing_reason
from tests.conftest import GIT_ENV


@pytest.fixture(scope="module")
def bridge() -> Iterator[BridgeEnv]:
    """A module's bridge environment for real-client runs (a slow first hook under load
    waits up to 10 s); a module with other bounds defines its own."""
    env = BridgeEnv(idle_s=120, wait_s=10)
    try:
        yield env
    finally:
        env.close()


@pytest.fixture(params=CLIENTS)
def client(request: pytest.FixtureRequest) -> str:
    """Each client in turn; a test for a client that is not installed is skipped."""
    name = str(request.param)
    reason = missing_reason(name)
    if reason is not None:
        pytest.skip(reason)
    return name


def make_repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository (one commit) holding ``files``: the clients look for its root."""
    root.mkdir(parents=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    env = {**GIT_ENV, "PATH": "/usr/bin:/bin", "HOME": str(root)}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "init"], check=True, env=env)
    return root


class Runs:
    """Client runs started in the background on first use, each at most once.

    ``get(key, start)`` returns the run under ``key``, starting ``start`` when nobody
    has yet; ``prefetch`` starts several so that they overlap (clients mostly wait:
    on node's start-up, their hooks, their MCP servers).
    """

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self._pool = ThreadPoolExecutor(max_workers=3)
        self._futures: dict[str, Future[Run]] = {}

    def prefetch(self, key: str, start: Callable[[Path], Run]) -> None:
        if key not in self._futures:
            work = Path(tempfile.mkdtemp(prefix=f"{key}-", dir=self.workdir))
            self._futures[key] = self._pool.submit(start, work)

    def get(self, key: str, start: Callable[[Path], Run]) -> Run:
        self.prefetch(key, start)
        return self._futures[key].result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def runs() -> Iterator[Runs]:
    workdir = Path(tempfile.mkdtemp(prefix="client-runs-"))
    pool = Runs(workdir)
    try:
        yield pool
    finally:
        pool.close()
        shutil.rmtree(workdir, ignore_errors=True)
