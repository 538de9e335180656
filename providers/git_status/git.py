"""The only module that starts processes: git, run so it never writes, prompts or hangs.

The repository is untrusted (the agent may open anything), so every run:

- passes ``--no-optional-locks`` (and ``GIT_OPTIONAL_LOCKS=0``): ``git status``
  does not refresh and rewrite the index, so we never take ``index.lock``
  from under the user's own git;
- passes ``-c core.fsmonitor=false``: a repo's config cannot make us run its
  fsmonitor command on every turn;
- has no pager, no terminal prompt, no stdin, and a timeout after which the
  whole process group is killed (submodule children included);
- drops the environment variables that point git at another repository
  (``git rev-parse --local-env-vars``), so the kernel's environment cannot
  redirect us.

Failures are classified once, here: not a repository (:class:`NotARepository`,
the caller contributes nothing), a ``safe.directory`` refusal or any other
failure or timeout (``source_unavailable``: retryable, the next turn tries again).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from providers.core.errors import invalid_request, source_unavailable

DEFAULT_TIMEOUT_MS = 5000

LOCAL_REPO_ENV = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
)
"""What ``git rev-parse --local-env-vars`` prints (git 2.39): repository-selecting variables."""

_FIXED_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",  # stable English messages: we classify failures by stderr text
}

_GLOBAL_OPTIONS = (
    "--no-pager",
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotepath=false",
)


class NotARepository(Exception):
    """The directory is in no repository: not an error, the provider contributes nothing."""


@dataclass(frozen=True)
class Layout:
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
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return True
        if (
            (candidate / "HEAD").is_file()
            and (candidate / "objects").is_dir()
            and (candidate / "refs").is_dir()
        ):
            return True
    return False


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
        base = dict(os.environ if environ is None else environ)
        for name in LOCAL_REPO_ENV:
            base.pop(name, None)
        base.pop("LANGUAGE", None)
        base.update(_FIXED_ENV)
        self._env = base

    def run(self, cwd: Path, *args: str) -> bytes:
        """``git -C cwd args...``: stdout bytes, or a classified error."""
        returncode, out, err = self._execute(cwd, args)
        if returncode != 0:
            raise classify_failure(_what(args), cwd, returncode, err)
        return out

    def discover(self, working_directory: Path) -> Layout | None:
        """Where the repository containing ``working_directory`` is; None when there is none.

        One ``rev-parse``; ``--show-toplevel`` comes last because it fails
        (after printing the rest) where there is no working tree.
        """
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
                return None
            raise failure
        if len(lines) != (4 if no_tree else 5):
            raise source_unavailable(
                f"unexpected `git rev-parse` output in {working_directory}: {lines!r} "
                "(a path with a newline in it?)"
            )
        toplevel = None if no_tree else Path(lines[4])
        return Layout(Path(lines[2]), Path(lines[3]), toplevel, lines[0] == "true")

    def _execute(self, cwd: Path, args: tuple[str, ...]) -> tuple[int, bytes, bytes]:
        argv = [self.executable, *_GLOBAL_OPTIONS, "-C", str(cwd), *args]
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env,
                start_new_session=True,  # so a timeout can kill git and its children
            )
        except OSError as exc:
            raise source_unavailable(f"cannot run git {self.executable!r}: {exc}") from exc
        try:
            out, err = proc.communicate(timeout=self.timeout_ms / 1000)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raise source_unavailable(
                f"{_what(args)} timed out after {self.timeout_ms} ms in {cwd}"
            ) from None
        return proc.returncode, out, err

    def status(self, toplevel: Path, *, untracked: str) -> bytes:
        """One porcelain v2 status of the whole working tree (paths relative to ``toplevel``)."""
        return self.run(
            toplevel,
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
        return self.run(
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

    def for_each_ref(self, cwd: Path, *patterns: str) -> bytes:
        """``refname NUL symref`` lines: for ref stores we cannot read as files (reftable)."""
        return self.run(cwd, "for-each-ref", "--format=%(refname)%00%(symref)", *patterns)


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


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()


def _what(args: tuple[str, ...]) -> str:
    return f"`git {args[0]}`" if args else "git"


__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "Git",
    "Layout",
    "NotARepository",
    "classify_failure",
    "find_executable",
    "might_be_repository",
]
