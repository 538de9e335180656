"""Isolated git configuration for every file tree test, and providers closed at teardown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.file_tree.provider import FileTreeProvider


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No user or system git config leaks in; returns the global config file tests may extend."""
    home = tmp_path_factory.mktemp("home")
    config = home / "gitconfig"
    config.write_text("[user]\n\tname = t\n\temail = t@t\n[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    return config


@pytest.fixture
def make_provider() -> Iterator[Callable[..., FileTreeProvider]]:
    """Configured providers whose watchers are stopped at teardown."""
    made: list[FileTreeProvider] = []

    def make(config: dict[str, Any] | None = None, **kwargs: Any) -> FileTreeProvider:
        provider = FileTreeProvider(**kwargs)
        provider.configure(config or {})
        made.append(provider)
        return provider

    yield make
    for provider in made:
        provider.close()
