"""Scratch git copies, so a preview shows the directory it was given.

A provider finds its repository by climbing from the working directory to
the nearest ``.git``, and a preview of a directory means what the kernel
would make of it: the repository around it. A folder in no repository, or
one asked for with ``--scratch`` (``sample_repo``, a project of its own
inside this checkout), is copied into a fresh git repository with one
commit and previewed there; the folder itself is never written to. Nothing here
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
from collections.abc import Callable, Iterator
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
    # A repository's own .git is not copied: the copy gets a history of its own.
    shutil.copytree(source, target, symlinks=True, ignore=_top_level_git(source))
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


def _top_level_git(source: Path) -> Callable[[str, list[str]], list[str]]:
    def ignore(directory: str, names: list[str]) -> list[str]:
        return [".git"] if Path(directory) == source and ".git" in names else []

    return ignore


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
    """Where a preview runs, and the line that tells the user which repository its answer
    is about."""

    working_directory: Path
    note: str
    scratch: bool = False
    """A scratch copy of ours: the preview may edit files in it."""


@contextlib.contextmanager
def previewed_repository(directory: Path, *, scratch: bool = False) -> Iterator[Previewed]:
    """The working directory to preview ``directory`` from.

    As the kernel would send it: a directory inside a repository means that repository,
    with the working directory there. A scratch git copy (everything committed, removed
    on exit, ``directory`` never written to) is made for a folder that is in no git
    repository, or when ``scratch`` asks for one (``sample_repo`` in our checkout,
    which is a project of its own inside the checkout's repository).
    """
    directory = directory.resolve()
    dot_git = dot_git_above(directory)
    enclosing = dot_git.parent if dot_git is not None else None
    if enclosing is not None and not scratch:
        around = "" if enclosing == directory else f", working directory {directory}"
        yield Previewed(directory, f"(repository: {enclosing}{around})")
        return
    why = ": it is in no git repository" if enclosing is None else " (--scratch)"
    if more_files_than(directory, COPY_LIMIT):
        shown = f"repository: {enclosing}" if enclosing else "repository: none"
        yield Previewed(
            directory,
            f"({shown}; {directory} has over {COPY_LIMIT:,} files, too many for a scratch "
            "git copy, so it is shown as it is)",
        )
        return
    with tempfile.TemporaryDirectory(prefix="preview-") as scratch_dir:
        repo = scratch_repository(directory, Path(scratch_dir))
        yield Previewed(
            repo,
            f"(repository: {directory}, as a scratch git copy with everything committed{why})",
            scratch=True,
        )
