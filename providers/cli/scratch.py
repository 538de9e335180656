"""Scratch git copies, so a preview shows the directory it was given.

A provider finds its repository by climbing from the working directory to
the nearest ``.git``. A directory of plain files inside another repository
(``sample_repo`` in this checkout) would show that other repository, so the
previews copy such a directory into a fresh git repository with one commit
and run there; the directory itself is never written to. Nothing here
imports grpc: the standalone commands use it too. These git runs write (a
repository of our own making), which ``repository.gitexec`` never does, so
they are started here, with its environment rules.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from providers.repository.gitexec import sanitized_environment
from providers.repository.layout import dot_git_above

_GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "preview",
    "GIT_AUTHOR_EMAIL": "preview@localhost",
    "GIT_COMMITTER_NAME": "preview",
    "GIT_COMMITTER_EMAIL": "preview@localhost",
}

COPY_LIMIT = 5000
"""Most files a standalone command copies; past it, copying would cost more than the
preview (and a directory that big is rarely a sample), so the repository around it is
shown instead and the command says so."""


def scratch_repository(source: Path, into: Path) -> Path:
    """A git repository copy of ``source`` with everything committed."""
    target = into / source.name
    shutil.copytree(source, target, symlinks=True)
    # Without GIT_DIR, GIT_WORK_TREE and the like: run from a git hook (or any shell that
    # set them), these commands would commit into the user's repository instead.
    env = {**sanitized_environment(), **_GIT_IDENTITY}
    # The user's global config still applies: a signing or hook setting must not stop
    # a throwaway commit.
    git = ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]
    commit = ["commit", "-q", "--no-verify", "-m", "Initial commit"]
    for args in (["init", "-q"], ["add", "-A"], commit):
        subprocess.run(
            [*git, "-C", str(target), *args],
            check=True,
            capture_output=True,
            env=env,
        )
    return target


def more_files_than(directory: Path, limit: int) -> bool:
    """Whether ``directory`` holds more than ``limit`` entries (files, links, directories),
    counted without following links and stopping as soon as the answer is known."""
    seen = 0
    pending = [directory]
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if seen > limit:
                        return True
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(Path(entry.path))
        except OSError:
            continue
    return False


@dataclass(frozen=True)
class Previewed:
    """Where a standalone preview runs, and the line that tells the user which repository
    its answer is about."""

    working_directory: Path
    note: str


@contextlib.contextmanager
def previewed_repository(directory: Path, *, copy: bool) -> Iterator[Previewed]:
    """The working directory to preview ``directory`` from.

    ``copy``: ``directory`` was named as the repository to show, so when it has no
    ``.git`` of its own but lies inside another repository (which the providers would
    climb to), it is previewed as a scratch git copy, removed on exit. Otherwise, as
    the kernel would run: the repository around ``directory``, if any.
    """
    directory = directory.resolve()
    dot_git = dot_git_above(directory)
    enclosing = dot_git.parent if dot_git is not None else None
    if enclosing is None:
        yield Previewed(directory, f"(repository: none; {directory} is not in a git repository)")
        return
    if enclosing == directory or not copy or not directory.is_dir():
        around = "" if enclosing == directory else f", around working directory {directory}"
        yield Previewed(directory, f"(repository: {enclosing}{around})")
        return
    if more_files_than(directory, COPY_LIMIT):
        yield Previewed(
            directory,
            f"(repository: {enclosing}; {directory} has no .git of its own and over "
            f"{COPY_LIMIT:,} files, too many to copy, so the repository around it is shown)",
        )
        return
    with tempfile.TemporaryDirectory(prefix="preview-") as scratch:
        repo = scratch_repository(directory, Path(scratch))
        yield Previewed(
            repo,
            f"(repository: {directory}, as a scratch git copy with everything committed: "
            f"it has no .git of its own and lies inside {enclosing})",
        )
