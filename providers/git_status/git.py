"""The git status provider's git commands: discovery, porcelain status, log, refs.

Processes are started by the shared runner (:mod:`providers.repository.gitexec`), which
applies the safety settings for a repository we do not trust (no optional
locks, no fsmonitor, no prompt or pager, a sanitised environment, a timeout
that kills the process group).

Failures are classified once, here: not a repository (:class:`NotARepository`,
the caller contributes nothing), a ``safe.directory`` refusal or any other
failure or timeout (``source_unavailable``: retryable, the next turn tries again).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from providers.core.errors import ErrorCategory, ProviderError, invalid_request, source_unavailable
from providers.repository.gitexec import (
    GitBlocked,
    GitRefused,
    GitRunner,
    GitStartError,
    GitTimeout,
    Running,
)
from providers.repository.layout import DOT_GIT, dot_git_above, looks_like_git_dir, upwards
from providers.repository.sources import read_prefix

DEFAULT_TIMEOUT_MS = 5000


LFS_OFF = (
    *("-c", "filter.lfs.required=false"),
    *("-c", "filter.lfs.process="),
    *("-c", "filter.lfs.clean="),
    *("-c", "filter.lfs.smudge="),
)
"""Global options that make git compare LFS files as they are, running nothing."""


class BlockedByFifo(ProviderError):
    """git waited to open a named pipe where it expected a file (``source_unavailable``)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCategory.SOURCE_UNAVAILABLE, message)


class NotARepository(Exception):
    """The directory is in no repository: not an error, the provider contributes nothing."""


class RepositoryRefused(Exception):
    """git is not run in this repository (``repository.guard`` says why): the section
    says so instead of the status."""


@dataclass(frozen=True)
class RepoLayout:
    """Where a repository's pieces are, all absolute.

    ``git_dir`` is per worktree (HEAD, index, rebase state); ``common_dir``
    holds refs and config (the same as ``git_dir`` except in linked
    worktrees). ``toplevel`` is None when there is no working tree: a bare
    repository, or a working directory inside the git dir itself.
    """

    git_dir: Path
    common_dir: Path
    toplevel: Path | None
    bare: bool


def find_executable(name: str) -> str:
    """The absolute path of the configured git, or ``invalid_request`` naming what was tried."""
    found = shutil.which(name)
    if found is None:
        raise invalid_request(f"git executable {name!r} not found or not executable")
    return os.path.abspath(found)


def might_be_repository(directory: Path) -> bool:
    """Cheap stat-only precheck: could git find a repository from here?

    False means certainly not (no ``.git`` and no bare-repository layout in
    any ancestor), so a directory outside every repository costs no process.
    """
    return any(
        os.path.lexists(candidate / DOT_GIT) or looks_like_git_dir(candidate)
        for candidate in upwards(directory)
    )


_CONFIG_READ_LIMIT = 64 * 1024
_UNUSUAL_CONFIG = re.compile(
    rb"worktree|include|^\s*bare\b(?!\s*=\s*(?:false|no|off|0)\s*$)", re.I | re.M
)
"""Settings that move the work tree or make the repository bare, or pull in other files."""


def plain_layout(working_directory: Path) -> RepoLayout | None:
    """The layout of the most common repository without running git; None when unsure.

    Sure means: the nearest ``.git`` above ``working_directory`` is a real
    directory that git would accept (``HEAD``, ``objects``, ``refs``), owned
    by us (so no ``safe.directory`` question), whose config neither moves
    the work tree nor makes it bare nor includes other files. Everything else
    (linked worktrees, submodules, bare repositories, being inside ``.git``)
    asks ``git rev-parse``. Saves one process on the cold turn.
    """
    if DOT_GIT in working_directory.resolve().parts:
        return None
    dot_git = dot_git_above(working_directory)
    if dot_git is None:
        return None
    candidate = dot_git.parent
    try:
        st = os.lstat(dot_git)
        owner = os.stat(candidate).st_uid
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or owner != os.geteuid():
        return None
    if not looks_like_git_dir(dot_git):
        return None  # git would walk past it: let git say where it ends up
    config = read_prefix(dot_git / "config", _CONFIG_READ_LIMIT + 1)
    if config is None or len(config) > _CONFIG_READ_LIMIT or _UNUSUAL_CONFIG.search(config):
        return None
    return RepoLayout(dot_git, dot_git, candidate, bare=False)


class Git:
    """Runs one configured git executable safely; one instance per configuration."""

    def __init__(
        self,
        executable: str,
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.executable = executable
        self.timeout_ms = timeout_ms
        self._runner = GitRunner(environ, executable=executable, timeout=timeout_ms / 1000)

    def run(self, cwd: Path, *args: str) -> bytes:
        """``git -C cwd args...``: stdout bytes, or a classified error."""
        return self.start(cwd, *args).output()

    def start(self, cwd: Path, *args: str) -> GitRun:
        """Start ``git -C cwd args...`` without waiting; :meth:`GitRun.output` waits."""
        try:
            running = self._runner.start(cwd, args, ok_codes=None)
        except GitRefused as exc:
            raise RepositoryRefused(str(exc)) from None
        except GitStartError as exc:
            raise source_unavailable(
                f"cannot run git {self.executable!r}: {exc.__cause__ or exc}"
            ) from exc
        return GitRun(self, cwd, args, running)

    def dropped_filters(self, cwd: Path) -> tuple[str, ...]:
        """Filter drivers the repository's own config sets that git runs without (no
        process: what the guard decided for ``cwd``'s last run)."""
        try:
            return self._runner.safety(cwd).dropped_filters
        except GitRefused as exc:
            raise RepositoryRefused(str(exc)) from None

    def discover(self, working_directory: Path) -> RepoLayout | None:
        """Where the repository containing ``working_directory`` is; None when there is none.

        The common case needs no process (:func:`plain_layout`); otherwise
        one ``rev-parse``; ``--show-toplevel`` comes last because it fails
        (after printing the rest) where there is no working tree.
        """
        plain = plain_layout(working_directory)
        if plain is not None:
            return plain
        if not might_be_repository(working_directory):
            return None
        args = (
            "rev-parse",
            "--path-format=absolute",
            "--is-bare-repository",
            "--is-inside-work-tree",
            "--git-dir",
            "--git-common-dir",
            "--show-toplevel",
        )
        returncode, out, err = self._execute(working_directory, args)
        lines = os.fsdecode(out).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        no_tree = len(lines) == 4 and lines[1] == "false"
        if returncode != 0 and not no_tree:
            failure = classify_failure(_what(args), working_directory, returncode, err)
            if isinstance(failure, NotARepository):
                _unreadable_git_dir(working_directory)
                return None
            raise failure
        if len(lines) != (4 if no_tree else 5):
            raise source_unavailable(
                f"unexpected `git rev-parse` output in {working_directory}: {lines!r} "
                "(a path with a newline in it?)"
            )
        toplevel = None if no_tree else Path(lines[4])
        return RepoLayout(Path(lines[2]), Path(lines[3]), toplevel, lines[0] == "true")

    def _execute(self, cwd: Path, args: tuple[str, ...]) -> tuple[int, bytes, bytes]:
        return self.start(cwd, *args).result()

    def status(self, toplevel: Path, *, untracked: str, lfs_optional: bool = False) -> bytes:
        """One porcelain v2 status of the whole working tree (paths relative to ``toplevel``).

        ``lfs_optional``: the LFS filter switched off, for when it is required but
        missing or broken (we never write, so a file it would clean is only compared).
        Its commands are emptied too: a dead ``filter-process`` fails git at random
        ("the remote end hung up") even when it is not required."""
        optional = LFS_OFF if lfs_optional else ()
        return self.run(
            toplevel,
            *optional,
            "status",
            "--porcelain=v2",
            "--branch",
            "--show-stash",
            "--ahead-behind",
            f"--untracked-files={untracked}",
            "-z",
        )

    def log(self, cwd: Path, count: int) -> bytes:
        """The last ``count`` commits of HEAD as ``full sha NUL short sha NUL subject NUL``."""
        return self.start_log(cwd, count).output()

    def start_log(self, cwd: Path, count: int) -> GitRun:
        """:meth:`log`, started: it can run while ``git status`` does."""
        return self.start(
            cwd,
            "log",
            f"--max-count={count}",
            "--no-color",
            "--no-show-signature",
            "--encoding=UTF-8",
            "--format=%H%x00%h%x00%s",
            "-z",
            "HEAD",
            "--",
        )

    def head_oid(self, cwd: Path) -> str | None:
        """The commit HEAD points at, None on an unborn branch (used where status cannot run)."""
        args = ("rev-parse", "-q", "--verify", "HEAD^{commit}")
        returncode, out, err = self._execute(cwd, args)
        if returncode == 1 and not err.strip():
            return None
        if returncode != 0:
            raise classify_failure(_what(args), cwd, returncode, err)
        return out.decode("ascii", "replace").strip() or None

    def distance(self, cwd: Path, base: str) -> tuple[int, int] | None:
        """(ahead, behind): commits HEAD has that ``base`` lacks, and the reverse; None
        when ``base`` does not name a commit."""
        args = ("rev-list", "--left-right", "--count", f"{base}...HEAD", "--")
        returncode, out, _ = self._execute(cwd, args)
        if returncode != 0:
            return None
        behind, _, ahead = out.decode("ascii", "replace").strip().partition("\t")
        try:
            return int(ahead), int(behind)
        except ValueError:
            return None

    def for_each_ref(self, cwd: Path, *patterns: str) -> bytes:
        """``refname NUL symref`` lines: for ref stores we cannot read as files (reftable)."""
        return self.run(cwd, "for-each-ref", "--format=%(refname)%00%(symref)", *patterns)


class GitRun:
    """One started run of :class:`Git`; its errors are classified as :meth:`Git.run`'s."""

    def __init__(self, git: Git, cwd: Path, args: tuple[str, ...], running: Running) -> None:
        self._git = git
        self._cwd = cwd
        self._args = args
        self._running = running

    def result(self) -> tuple[int, bytes, bytes]:
        """``(returncode, stdout, stderr)`` whatever the exit code; a timeout is classified."""
        try:
            return self._running.wait()
        except GitBlocked as exc:
            raise BlockedByFifo(str(exc)) from None
        except GitTimeout:
            raise source_unavailable(
                f"{_what(self._args)} timed out after {self._git.timeout_ms} ms in {self._cwd}"
            ) from None

    def output(self) -> bytes:
        """stdout, or a classified error when git failed."""
        returncode, out, err = self.result()
        if returncode != 0:
            raise classify_failure(_what(self._args), self._cwd, returncode, err)
        return out


def _unreadable_git_dir(working_directory: Path) -> None:
    """git says "not a repository" also when it cannot read the ``.git`` in front of it:
    that is an unreadable source (``source_unavailable``), not the absence of one."""
    dot_git = dot_git_above(working_directory)
    if dot_git is None:
        return
    try:
        if os.path.isdir(dot_git):
            os.stat(dot_git / "HEAD")
        else:
            os.close(os.open(dot_git, os.O_RDONLY | os.O_NONBLOCK))
    except PermissionError:
        raise source_unavailable(f"{dot_git} cannot be read: permission denied") from None
    except OSError:
        return


def classify_failure(what: str, cwd: Path, returncode: int, stderr: bytes) -> Exception:
    """Turn a failed run into :class:`NotARepository` or a ``source_unavailable`` error."""
    text = stderr.decode("utf-8", "replace")
    if "not a git repository" in text:
        return NotARepository(str(cwd))
    if "detected dubious ownership" in text:
        return source_unavailable(
            f"git refuses to read the repository at {cwd}: it is owned by another user "
            "(safe.directory). If you trust it, run "
            f"`git config --global --add safe.directory {cwd}`"
        )
    first = next((line.strip() for line in text.splitlines() if line.strip()), "no message")
    return source_unavailable(f"{what} failed in {cwd} (exit {returncode}): {first}")


def _what(args: tuple[str, ...]) -> str:
    return f"`git {args[0]}`" if args else "git"


__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "Git",
    "NotARepository",
    "RepoLayout",
    "RepositoryRefused",
    "classify_failure",
    "find_executable",
    "might_be_repository",
]
