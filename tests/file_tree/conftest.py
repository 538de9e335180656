"""Isolated git configuration for every file tree test, and providers closed at teardown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from providers.file_tree.provider import FileTreeProvider
from tests.conftest import isolate_git, provider_factory


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No user or system git config leaks in, and each test has a history cache of its own
    (under its temporary HOME)."""
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return isolate_git(tmp_path_factory, monkeypatch)


@pytest.fixture
def make_provider() -> Iterator[Callable[..., FileTreeProvider]]:
    """Configured providers whose watchers are stopped at teardown."""
    with provider_factory(FileTreeProvider) as make:
        yield make
