"""The shared git runner: sanitised environment, repository config never obeyed, timeouts kill."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from providers.repository.gitexec import (
    GitExitError,
    GitRunner,
    GitStartError,
    GitTimeout,
    sanitized_environment,
)
from tests.conftest import isolate_git


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user or system git config leaks in."""
    isolate_git(tmp_path_factory, monkeypatch)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def init(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "README").write_text("hello\n")
    git(path, "add", "README")
    git(path, "commit", "-qm", "initial")
    return path


def write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_environment_drops_repository_selectors_and_fixes_the_rest() -> None:
    env = sanitized_environment(
        {
            "GIT_DIR": "/elsewhere/.git",
            "GIT_WORK_TREE": "/elsewhere",
            "GIT_INDEX_FILE": "/elsewhere/index",
            "GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='/evil'",
            "LANGUAGE": "de",
            "LC_ALL": "de_DE.UTF-8",
            "GIT_TERMINAL_PROMPT": "1",
            "HOME": "/home/me",
            "GIT_CONFIG_GLOBAL": "/home/me/gitconfig",
        }
    )
    assert env == {
        "HOME": "/home/me",
        "GIT_CONFIG_GLOBAL": "/home/me/gitconfig",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "LC_ALL": "C",
    }


def test_repository_selecting_environment_is_ignored(tmp_path: Path) -> None:
    """GIT_DIR in the kernel's environment must not point us at another repository."""
    repo = init(tmp_path / "repo")
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    environ = {**os.environ, "GIT_DIR": str(other / ".git"), "GIT_WORK_TREE": str(other)}
    _, out, _ = GitRunner(environ).run(repo, ["rev-parse", "--show-toplevel"])
    assert Path(out.decode().strip()) == repo


def test_fsmonitor_hook_from_repo_config_never_runs(tmp_path: Path) -> None:
    repo = init(tmp_path / "repo")
    marker = tmp_path / "fsmonitor-ran"
    hook = write_script(tmp_path / "hook", f'touch "{marker}"\n')
    git(repo, "config", "core.fsmonitor", str(hook))
    (repo / "README").write_text("changed\n")
    GitRunner().run(repo, ["status", "--porcelain"])
    GitRunner().run(repo, ["ls-files", "-z", "-co", "--exclude-standard"])
    assert not marker.exists()


def test_stdin_is_empty_unless_fed(tmp_path: Path) -> None:
    repo = init(tmp_path / "repo")
    _, out, _ = GitRunner().run(repo, ["hash-object", "--stdin"])
    assert out.decode().strip() == git(repo, "hash-object", "/dev/null").strip()
    _, fed, _ = GitRunner().run(repo, ["hash-object", "--stdin"], stdin=b"hello\n")
    assert fed.decode().strip() == git(repo, "hash-object", "README").strip()


def test_unaccepted_exit_code_is_an_exit_error(tmp_path: Path) -> None:
    repo = init(tmp_path / "repo")
    runner = GitRunner()
    with pytest.raises(GitExitError) as caught:
        runner.run(repo, ["config", "--get", "no.such-key"])
    assert caught.value.returncode == 1
    code, _, _ = runner.run(repo, ["config", "--get", "no.such-key"], ok_codes=(0, 1))
    assert code == 1
    code, _, err = runner.run(tmp_path, ["status"], ok_codes=None)
    assert code == 128 and b"not a git repository" in err


def test_missing_executable_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(GitStartError):
        GitRunner(executable=str(tmp_path / "no-such-git")).run(tmp_path, ["status"])


def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    """A child git started (a hook, a submodule's git) dies with it."""
    child_pid = tmp_path / "child.pid"
    sleepy = write_script(
        tmp_path / "sleepy-git", f'sleep 30 &\necho $! > "{child_pid}"\nsleep 30\n'
    )
    started = time.monotonic()
    with pytest.raises(GitTimeout) as caught:
        GitRunner(executable=str(sleepy), timeout=0.5).run(tmp_path, ["status"])
    assert time.monotonic() - started < 5
    assert caught.value.timeout == 0.5
    pid = int(child_pid.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid):
        assert time.monotonic() < deadline, "the child of the timed-out git survived"
        time.sleep(0.05)


def test_concurrent_runs_and_kill(tmp_path: Path) -> None:
    repo = init(tmp_path / "repo")
    sleepy = write_script(tmp_path / "sleepy-git", "sleep 30\n")
    slow = GitRunner(executable=str(sleepy)).start(repo, ["status"])
    fast = GitRunner().start(repo, ["rev-parse", "HEAD"])
    _, out, _ = fast.wait()
    assert out.decode().strip() == git(repo, "rev-parse", "HEAD").strip()
    started = time.monotonic()
    slow.kill()
    assert time.monotonic() - started < 5
    slow.kill()  # twice is harmless


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie awaiting its reaper counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
