"""Shared fixtures: copies of sample_repo (optionally as a real git repository), plugin commands."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import settings

from providers.host.launcher import SOCKET_DIR_ENV, PluginProcess
from tests.support.files import CountingReader

# The same examples on every run: a property test that fails fails every time, in CI
# as here (found examples are pinned with @example where they matter).
settings.register_profile("repeatable", derandomize=True, database=None)
settings.load_profile("repeatable")

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_REPO = REPO_ROOT / "sample_repo"


@pytest.fixture(autouse=True, scope="session")
def _history_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The file tree keeps mined history under ``$XDG_CACHE_HOME``: the tests' own, never
    the user's (a plugin launched with only ``HOME`` passed still uses that HOME's)."""
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    yield
    patch.undo()


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(scope="session", autouse=True)
def short_socket_dir() -> Iterator[str]:
    """Issue 20 items 10-11: every plugin our host launches, in this process or in a host
    a test starts, puts its unix sockets here: a short path whatever TMPDIR is (a socket
    path over 108 bytes cannot be bound), removed with anything a killed host left."""
    base = "/tmp" if os.access("/tmp", os.W_OK) else tempfile.gettempdir()
    directory = tempfile.mkdtemp(prefix="ctxt-", dir=base)
    previous = os.environ.get(SOCKET_DIR_ENV)
    os.environ[SOCKET_DIR_ENV] = directory
    try:
        yield directory
    finally:
        if previous is None:
            os.environ.pop(SOCKET_DIR_ENV, None)
        else:
            os.environ[SOCKET_DIR_ENV] = previous
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(autouse=True)
def close_launched_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Issue 20 item 10: a plugin a test launched is closed when the test ends, also when
    it fails before its own close (a plugin left running made an unrelated test fail)."""
    launched: list[PluginProcess] = []
    launch = PluginProcess.launch.__func__  # type: ignore[attr-defined]

    def recorded(cls: type[PluginProcess], *args: Any, **kwargs: Any) -> PluginProcess:
        plugin: PluginProcess = launch(cls, *args, **kwargs)
        launched.append(plugin)
        return plugin

    monkeypatch.setattr(PluginProcess, "launch", classmethod(recorded))
    yield
    for plugin in launched:
        plugin.close()


class ClosableProvider(Protocol):
    def configure(self, config: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


P = TypeVar("P", bound=ClosableProvider)


@contextlib.contextmanager
def provider_factory(cls: Callable[..., P]) -> Iterator[Callable[..., P]]:
    """``make(config, **kwargs)``: configured providers, closed (watchers stopped) on exit."""
    made: list[P] = []

    def make(config: dict[str, Any] | None = None, **kwargs: Any) -> P:
        provider = cls(**kwargs)
        provider.configure(config or {})
        made.append(provider)
        return provider

    try:
        yield make
    finally:
        for provider in made:
            provider.close()


def isolate_git(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    extra_config: str = "",
) -> Path:
    """No user or system git config leaks into a test; returns the global config file
    (tests may extend it). Identity and ``main`` as the default branch are set."""
    home = tmp_path_factory.mktemp("home")
    config = home / "gitconfig"
    config.write_text(
        "[user]\n\tname = t\n\temail = t@t\n[init]\n\tdefaultBranch = main\n" + extra_config
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_TEST_ASSUME_DIFFERENT_OWNER"):
        monkeypatch.delenv(name, raising=False)
    return config


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    result = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return result.stdout


def copy_sample(destination: Path, *, as_git: bool = False) -> Path:
    repo = destination / "sample_repo"
    shutil.copytree(SAMPLE_REPO, repo)
    if as_git:
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "initial")
    return repo


def _not_source(directory: str, names: list[str]) -> set[str]:
    """Build output and caches (sample_repo's own build/ is source: it shows ignoring)."""
    at_root = Path(directory) == REPO_ROOT
    return {
        name
        for name in names
        if name in ("__pycache__", ".git", ".hypothesis")
        or name.endswith(("_cache", ".egg-info"))
        or (at_root and name in (".venv", "build", "dist", ".benchmarks"))
    }


def copy_checkout(destination: Path) -> Path:
    """This checkout's own files, as a clean clone would have them plus work not yet
    committed: git's tracked and new files (not ignored ones: no .venv, no caches).
    Outside a git checkout (an unpacked sdist), every file but build output."""
    if not (REPO_ROOT / ".git").exists():
        shutil.copytree(REPO_ROOT, destination, symlinks=True, ignore=_not_source)
        return destination
    listed = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-files", "-co", "--exclude-standard", "-z"],
        capture_output=True,
        check=True,
    ).stdout
    for rel in filter(None, listed.decode().split("\0")):
        source = REPO_ROOT / rel
        if not source.is_file():
            continue  # deleted in the work tree, still in the index
        target = destination / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return destination


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A fresh copy of sample_repo (plain files)."""
    return copy_sample(tmp_path)


@pytest.fixture
def sample_git(tmp_path: Path) -> Path:
    """A fresh copy of sample_repo as a git repository with one commit."""
    return copy_sample(tmp_path, as_git=True)


def script(name: str) -> str:
    """The installed console script for a provider (what the kernel would execute)."""
    for directory in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = Path(directory) / name
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: run pip install -e .")
    return found


@pytest.fixture
def repo_conventions_command() -> list[str]:
    return [script("context-repo-conventions")]


@pytest.fixture
def chdir_tmp(tmp_path: Path) -> Iterator[Path]:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


@pytest.fixture
def reader() -> CountingReader:
    """A reader that counts reads (rule and scoped docs tests)."""
    return CountingReader()
