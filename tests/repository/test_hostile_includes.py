"""Issue 20 item 3: git reads no file outside the repository that the repository's config
names (``include.path``, ``includeIf``, ``core.excludesFile``, ``core.attributesFile``,
``mailmap.file``, ``diff.orderFile``); the user's own global config is still theirs.

What is read is watched for real: the outside file is a FIFO, and a witness thread
keeps trying to open it for writing without blocking, which succeeds exactly while
some process has it open for reading.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.repository.gitexec import GitRefused, GitRunner
from tests.conftest import isolate_git
from tests.repository.hostile import assert_answers_right, base_repo, four_answers, run_git


@pytest.fixture
def global_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    return isolate_git(tmp_path_factory, monkeypatch)


@pytest.fixture
def repo(tmp_path: Path, global_config: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return base_repo(path)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere"
    path.mkdir()
    return path


class Witness:
    """Sees whether anything opens a FIFO for reading (and lets that reader go on)."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.opened = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                assert exc.errno == errno.ENXIO, exc  # no reader: the usual answer
                time.sleep(0.001)
                continue
            self.opened += 1
            os.close(fd)  # the reader sees end of file at once

    def __enter__(self) -> Witness:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@contextlib.contextmanager
def witnessed(fifo: Path) -> Iterator[Witness]:
    os.mkfifo(fifo)
    with Witness(fifo) as witness:
        yield witness


def proven(repo: Path, witness: Witness, *args: str) -> None:
    """Plain git does open the outside file (the trap is real); the count starts again."""
    run_git(repo, *args, check=False)
    assert witness.opened, f"plain git {args} did not read {witness.fifo}"
    witness.opened = 0


@pytest.mark.parametrize(
    "key, value",
    [
        ("include.path", "{fifo}"),
        ("include.path", "~/outside.cfg"),
        ("includeIf.gitdir:/.path", "../../elsewhere/outside.cfg"),
        ("includeIf.onbranch:main.path", "{fifo}"),
    ],
)
def test_an_include_outside_the_repository_is_refused_unread(
    key: str, value: str, repo: Path, outside: Path, global_config: Path
) -> None:
    """Issue 20 item 3: git has no switch to skip one scope's includes, so a repository whose
    config includes a file outside it gets no git run at all: git status says why in its
    section, the file tree and scoped docs list the directory without git, and the file
    is never opened (nor by us)."""
    home = global_config.parent
    fifo = home / "outside.cfg" if value.startswith("~") else outside / "outside.cfg"
    with witnessed(fifo) as witness:
        run_git(repo, "config", key, value.format(fifo=fifo))
        proven(repo, witness, "status")
        answers = four_answers(repo)
        with pytest.raises(GitRefused, match="outside"):
            GitRunner().run(repo, ["status"])
    assert witness.opened == 0
    assert_answers_right(answers, status=False)
    assert answers.status.startswith("Note: git is not run in"), answers.status
    assert "is outside the repository" in answers.status


@pytest.mark.parametrize(
    "key, args",
    [
        ("core.excludesFile", ("ls-files", "-o", "--exclude-standard")),
        ("core.attributesFile", ("check-attr", "-a", "data.txt")),
        ("mailmap.file", ("log", "-1", "--format=%aN")),
        ("diff.orderFile", ("log", "-1", "--name-only")),
    ],
)
def test_a_file_outside_named_by_the_repository_config_is_not_read(
    key: str, args: tuple[str, ...], repo: Path, outside: Path
) -> None:
    """Issue 20 item 3: excludes, attributes, mailmap and diff order files the repository
    names outside it are overridden (the user's own setting or git's default instead):
    git runs and answers, and never opens them."""
    fifo = outside / "file"
    with witnessed(fifo) as witness:
        run_git(repo, "config", key, str(fifo))
        proven(repo, witness, *args)
        answers = four_answers(repo)
        GitRunner().run(repo, list(args), ok_codes=None)
    assert witness.opened == 0
    assert_answers_right(answers)


def test_the_users_own_excludes_file_still_applies(
    repo: Path, outside: Path, tmp_path: Path, global_config: Path
) -> None:
    """Issue 20 item 3: the user's global config is theirs: their ``core.excludesFile``
    (outside the repository) still hides what it names, while the repository's own
    ``core.excludesFile`` (hiding ``*.py``) is not read."""
    theirs = tmp_path / "global-ignore"
    theirs.write_text("*.log\n")
    with global_config.open("a") as config:
        config.write(f"[core]\n\texcludesFile = {theirs}\n")
    hostile = outside / "ignore"
    hostile.write_text("*.py\n")
    run_git(repo, "config", "core.excludesFile", str(hostile))
    (repo / "src" / "new.py").write_text("x = 1\n")
    (repo / "debug.log").write_text("noise\n")
    answers = four_answers(repo, touched=())
    assert "new.py" in answers.tree and "debug.log" not in answers.tree
    assert "src/new.py" in answers.status and "debug.log" not in answers.status
