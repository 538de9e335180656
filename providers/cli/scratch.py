"""Scratch git copies, so a preview shows the directory it was given.

A provider finds its repository by climbing from the working directory to
the nearest ``.git``, and a preview of a directory means what the kernel
would make of it: the repository around it. A folder in no repository, or
one asked for with ``--scratch`` (``sample_repo``, a project of its own
inside this checkout), is copied into a fresh git repository with one
commit and previewed there; the folder itself is never written to. Nothing here
imports grpc: the standalone commands use it too. git runs through
``repository.gitexec`` (its environment, its guard on the repository), as
everywhere; these runs write, in a repository of our own making.

The commit holds what git can add, and the note names what it could not, as
git lists it: a nested repository without commits (one entry, ``inner/``;
one with commits is committed as git adds it, a gitlink), a name git refuses
(``.git`` in another case, ``git~1``, a ``.gitmodules`` symlink, ...) and a
file that could not be copied (a named pipe). What is left out stays in the
copy, untracked, as it would in the user's own repository. A copy that
cannot be made at all is a :class:`ProviderError` (``source_unavailable``),
one line for the shell commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from providers.core.errors import ProviderError, source_unavailable
from providers.repository.gitexec import GitError, GitRunner
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

NAMED_LEFT_OUT = 5
"""Most entries the note names of those the commit lacks; it counts the rest."""

NO_COMMIT = "a git repository without commits, untracked"
REFUSED = "a name git refuses, untracked"


@dataclass(frozen=True)
class LeftOut:
    """An entry of the folder the scratch commit lacks, and why."""

    path: str
    """Relative to the folder, as git lists it: a directory ends in ``/``."""
    why: str


@dataclass(frozen=True)
class Scratch:
    """A scratch copy: its work tree, and what its commit lacks (by path)."""

    root: Path
    left_out: tuple[LeftOut, ...] = ()


def scratch_copy(source: Path, into: Path) -> Scratch:
    """A git repository copy of ``source`` in ``into``, what git can add committed, and
    what it could not; :class:`ProviderError` (``source_unavailable``) when the copy or
    git fails outright."""
    target = into / source.name
    not_copied: list[LeftOut] = []
    try:
        # A repository's own .git is not copied: the copy gets a history of its own.
        shutil.copytree(source, target, symlinks=True, ignore=_top_level_git(source))
    except shutil.Error as exc:  # every entry that could be copied was
        not_copied = _not_copied(source, exc.args[0])
    except OSError as exc:
        raise _failed(source, str(exc)) from None
    # Without GIT_DIR, GIT_WORK_TREE and the like (gitexec drops them): run from a git
    # hook (or any shell that set them), these commands would commit into the user's
    # repository instead. The user's global config still applies: a signing or hook
    # setting must not stop a throwaway commit.
    git = GitRunner({**os.environ, **_GIT_IDENTITY})
    options = ["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]
    try:
        git.run(target, [*options, "init", "-q"])
        # 1: some entries could not be added (named below); the others are.
        git.run(target, [*options, "add", "-A", "--ignore-errors"], ok_codes=(0, 1))
        # A nested repository is one entry (``inner/``), a refused name its own path.
        _, out, _ = git.run(target, ["ls-files", "-z", "-o", "--exclude-standard"])
        commit = ["commit", "-q", "--no-verify", "--allow-empty", "-m", "Initial commit"]
        git.run(target, [*options, *commit])
    except GitError as exc:
        raise _failed(source, str(exc)) from None
    left = [_left_out(target, os.fsdecode(p)) for p in out.split(b"\0") if p]
    return Scratch(target, tuple(sorted({*left, *not_copied}, key=lambda e: e.path)))


def _failed(source: Path, why: str) -> ProviderError:
    return source_unavailable(f"cannot make a scratch git copy of {source}: {why}")


def _left_out(target: Path, path: str) -> LeftOut:
    """Why git left ``path`` (as ``ls-files`` lists it) out of the commit."""
    if path.endswith("/") and os.path.lexists(target / path / ".git"):
        return LeftOut(path, NO_COMMIT)
    return LeftOut(path, REFUSED)


def _not_copied(source: Path, errors: Sequence[tuple[str, str, str]]) -> list[LeftOut]:
    """``shutil.Error``'s list (source, destination, why) as entries of ``source``."""
    out = []
    for src, _, why in errors:
        rel = os.path.relpath(src, source)
        reason = str(why).replace(src, "").strip(" :`'\"").removeprefix("is ")
        out.append(LeftOut(rel, f"not copied: {reason}"))
    return out


def left_out_note(left_out: Sequence[LeftOut]) -> str:
    """One line naming what a scratch commit lacks (the first few, then a count)."""
    named = [f"{_shown(e.path)} ({e.why})" for e in left_out[:NAMED_LEFT_OUT]]
    more = len(left_out) - len(named)
    if more:
        named.append(f"{more:,} more")
    return "(left out of the scratch commit: " + ", ".join(named) + ")"


def _shown(path: str) -> str:
    """A path as shown: verbatim when plain, JSON-quoted when it would break a line."""
    if path.isprintable() and path.strip() == path and '"' not in path and "\\" not in path:
        return path
    raw = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return json.dumps(raw, ensure_ascii=False)


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
        copy = scratch_copy(directory, Path(scratch_dir))
        what = "everything git can add" if copy.left_out else "everything"
        note = f"(repository: {directory}, as a scratch git copy with {what} committed{why})"
        if copy.left_out:
            note += "\n" + left_out_note(copy.left_out)
        yield Previewed(copy.root, note, scratch=True)
