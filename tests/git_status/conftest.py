"""Real git repositories in tmp_path, an isolated git config, and providers that get closed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from providers.git_status.provider import GitStatusProvider
from tests.conftest import isolate_git, provider_factory
from tests.git_status.repos import commit_file, git


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Isolated config; fixed dates make shas reproducible."""
    isolate_git(
        tmp_path_factory,
        monkeypatch,
        '[protocol "file"]\n\tallow = always\n[advice]\n\tdetachedHead = false\n',
    )
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(name, "2024-01-01T00:00:00Z")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on ``main`` with one commit (``README``)."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    commit_file(path, "README", "hello\n", "initial")
    return path


@pytest.fixture
def make_provider() -> Iterator[Callable[..., GitStatusProvider]]:
    """Configured providers whose watchers are stopped at teardown."""
    with provider_factory(GitStatusProvider) as make:
        yield make
