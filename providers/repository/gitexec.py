"""The one place that starts git: run so it never writes, prompts, hangs or obeys the repository.

The repository is untrusted (the agent may open anything), so every run:

- passes ``--no-optional-locks`` (and ``GIT_OPTIONAL_LOCKS=0``): ``git status``
  does not refresh and rewrite the index, so we never take ``index.lock``
  from under the user's own git;
- passes ``-c core.fsmonitor=false``: a repository's config cannot make us
  run its fsmonitor command on every call;
- has no pager, no terminal prompt, stdin from /dev/null unless we feed it,
  and a timeout after which the whole process group is killed (submodule
  children included);
- drops the environment variables that point git at another repository
  (``git rev-parse --local-env-vars``), so the kernel's environment cannot
  redirect us. The global config (``GIT_CONFIG_GLOBAL``, ``HOME``) is kept:
  git's global excludes file is part of what it lists;
- runs only in a repository :mod:`guard` has vetted, with its settings: no
  program the repository's config names (filters, hooks, signing, transports)
  and no file outside it (includes, excludes and attributes files); elsewhere
  :class:`GitRefused`, and the caller does without git;
- gives ``diff``, ``log`` and ``show`` ``--no-ext-diff --no-textconv``: no
  external diff, ``diff.<driver>.command`` or textconv program runs.

Failures come out as :class:`GitError` subclasses; each provider turns them
into its own errors (the git status provider into ``source_unavailable``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from providers.repository.gitconfig import USER_CONFIG_ARGS, user_values
from providers.repository.guard import NO_REPOSITORY, Refused, RepositoryGuard, Safety

DEFAULT_TIMEOUT_S = 60.0
"""Generous: ``ls-files`` over 300k files takes about a second on a cold cache."""

REPOSITORY_ENV = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_DIR",
    "GIT_GRAFT_FILE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_NAMESPACE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_WORK_TREE",
)
"""Variables that select another repository or work tree (``git rev-parse --local-env-vars``)."""

FIXED_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",  # stable English messages: failures are classified by stderr text
}

GLOBAL_OPTIONS = (
    "--no-pager",
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotepath=false",
)

NO_PROGRAMS = ("--no-ext-diff", "--no-textconv")
SUBCOMMAND_OPTIONS = {"diff": NO_PROGRAMS, "log": NO_PROGRAMS, "show": NO_PROGRAMS}
"""Options each of these subcommands gets first: they could run the repository's external
diff (``diff.external``, ``diff.<driver>.command``) or textconv programs."""


def with_subcommand_options(args: Sequence[str]) -> list[str]:
    """``args`` with :data:`SUBCOMMAND_OPTIONS` after the subcommand (past any ``-c k=v``)."""
    out = list(args)
    at = 0
    while at < len(out) and out[at].startswith("-"):
        at += 2 if out[at] == "-c" else 1
    if at < len(out):
        out[at + 1 : at + 1] = SUBCOMMAND_OPTIONS.get(out[at], ())
    return out


class GitError(Exception):
    """git could not answer (missing, not a repository, refused, timed out)."""


class GitRefused(GitError):
    """git is not run in this repository (:mod:`guard` says why): its config or layout
    would make git run a program of its choosing, read outside it, or show another
    directory's files as its own."""


class GitStartError(GitError):
    """The process could not be started (no such executable or directory)."""


class GitTimeout(GitError):
    """git ran past its timeout and was killed with its process group."""

    def __init__(self, message: str, timeout: float) -> None:
        super().__init__(message)
        self.timeout = timeout


class GitBlocked(GitError):
    """git waited to open a named pipe (a FIFO where a file such as ``.gitignore`` was
    expected) and was killed: it would have waited for a writer for good."""


class GitExitError(GitError):
    """git exited with a code the caller did not accept."""

    def __init__(self, message: str, returncode: int, stderr: bytes) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


def sanitized_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: ours) without repository selectors, with the fixed settings."""
    env = dict(os.environ if environ is None else environ)
    for name in REPOSITORY_ENV:
        env.pop(name, None)
    env.pop("LANGUAGE", None)
    env.update(FIXED_ENV)
    return env


_WATCH_POLL_S = 0.05
"""How often the watchdog looks at running git processes (deadline, FIFO)."""
_FIFO_WAIT = b"wait_for_partner"
"""What ``/proc/<pid>/wchan`` says while ``open`` waits for a FIFO's other end."""

_LIVE: set[Running] = set()
"""Every git run not yet waited for or killed: the watchdog's charge, and what
:func:`kill_all` stops on shutdown."""
_LIVE_LOCK = threading.Condition()
_watchdog: threading.Thread | None = None


def _track(run: Running, alive: bool) -> None:
    global _watchdog
    with _LIVE_LOCK:
        if alive:
            _LIVE.add(run)
            if _watchdog is None:
                _watchdog = threading.Thread(target=_watch, name="git-watchdog", daemon=True)
                _watchdog.start()
            _LIVE_LOCK.notify()
        else:
            _LIVE.discard(run)


def _watch() -> None:
    """Stop git runs past their deadline, or stuck opening a FIFO, while their callers
    wait in ``communicate`` (which then returns at once: git's pipes close).

    A thread of its own rather than ``communicate(timeout=...)`` in a loop: each
    expired timeout makes ``communicate`` join everything read so far, megabytes
    of short-lived copies per poll at 300k files, which fragment the heap.
    """
    while True:
        with _LIVE_LOCK:
            while not _LIVE:
                _LIVE_LOCK.wait()
            running = list(_LIVE)
        now = time.monotonic()
        for run in running:
            run.check(now)
        time.sleep(_WATCH_POLL_S)


def waits_for_fifo(pid: int) -> bool:
    """Whether process ``pid``, or one of its children, is stuck opening a FIFO."""
    pending, seen = [pid], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with open(f"/proc/{current}/wchan", "rb") as handle:
                if handle.read(64).strip() == _FIFO_WAIT:
                    return True
            with open(f"/proc/{current}/task/{current}/children", "rb") as handle:
                pending.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            continue
    return False


def kill_all() -> int:
    """Kill every git run still going, with its process group; how many there were.

    For shutdown: a run started by a turn the host abandoned must not outlive us.
    """
    with _LIVE_LOCK:
        running = list(_LIVE)
    for run in running:
        with contextlib.suppress(OSError):
            run.kill()
    return len(running)


class GitRunner:
    """Runs one git executable with the safety settings above; tests wrap it to count calls."""

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        executable: str = "git",
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self._env = sanitized_environment(environ)
        self._executable = executable
        self._timeout = timeout
        self._guard = RepositoryGuard(self._launch, self._env)

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment git runs with (where ``HOME`` and ``XDG_CONFIG_HOME`` come from)."""
        return self._env

    @property
    def executable(self) -> str:
        return self._executable

    @property
    def timeout(self) -> float:
        """Seconds each run may take before it is killed."""
        return self._timeout

    def safety(self, cwd: Path) -> Safety:
        """What git run in ``cwd`` is given (:class:`GitRefused` where it is not run)."""
        try:
            return self._guard.check(Path(cwd))
        except Refused as exc:
            raise GitRefused(f"git is not run in {cwd}: {exc}") from None

    def user_config(self, cwd: Path) -> Mapping[str, str]:
        """The user's own git config (system and global, last value of each key), never the
        repository's; read from ``cwd`` so their ``includeIf`` conditions see it."""
        try:
            running = self.start(cwd, USER_CONFIG_ARGS, ok_codes=None)
        except GitRefused:
            return self._guard.user_config_outside()
        code, out, _ = running.wait()
        return user_values(out) if code == 0 else {}

    def start(
        self,
        cwd: Path,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        ok_codes: tuple[int, ...] | None = (0,),
    ) -> Running:
        """Start ``git -C cwd args``; :meth:`Running.wait` gives its result.

        ``ok_codes`` None accepts any exit code (the caller classifies it).
        """
        env = {**self._env, **self.safety(cwd).env}
        return self._spawn(cwd, with_subcommand_options(args), env, stdin, ok_codes)

    def _launch(
        self,
        cwd: Path,
        args: Sequence[str],
        env: Mapping[str, str],
        ok_codes: tuple[int, ...] = (0,),
    ) -> bytes:
        """The guard's own runs (reading config, listing gitlinks): stdout, or GitError."""
        full = {**self._env, **NO_REPOSITORY.env, **env}
        return self._spawn(cwd, args, full, None, ok_codes).wait()[1]

    def _spawn(
        self,
        cwd: Path,
        args: Sequence[str],
        env: Mapping[str, str],
        stdin: bytes | None,
        ok_codes: tuple[int, ...] | None,
    ) -> Running:
        argv = [self._executable, *GLOBAL_OPTIONS, "-C", os.fspath(cwd), *args]
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,  # so a timeout can kill git and its children
            )
        except OSError as exc:
            raise GitStartError(f"cannot run git {self._executable!r} in {cwd}: {exc}") from exc
        what = f"git {args[0]} in {cwd}" if args else f"git in {cwd}"
        running = Running(process, what, stdin, ok_codes, self._timeout)
        _track(running, True)
        return running

    def run(
        self,
        cwd: Path,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        ok_codes: tuple[int, ...] | None = (0,),
    ) -> tuple[int, bytes, bytes]:
        """``(returncode, stdout, stderr)`` of ``git args`` in ``cwd``; GitError otherwise."""
        return self.start(cwd, args, stdin=stdin, ok_codes=ok_codes).wait()


class Running:
    """One started git process (several may run at once)."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        what: str,
        stdin: bytes | None,
        ok_codes: tuple[int, ...] | None,
        timeout: float,
    ) -> None:
        self._process = process
        self._what = what
        self._stdin = stdin
        self._ok_codes = ok_codes
        self._timeout = timeout
        self._started = time.monotonic()
        self._stopped: type[GitError] | None = None
        """Why the watchdog stopped git, when it did: GitTimeout or GitBlocked."""

    def wait(self) -> tuple[int, bytes, bytes]:
        """``(returncode, stdout, stderr)``; GitError on failure, timeout or a FIFO that git
        waits on (git is killed, with its process group, by the watchdog).

        git opens the files it reads (``.gitignore``, ``info/exclude``, ...) with
        a blocking ``open``: a FIFO in their place would hold it until the
        timeout. While git runs, the watchdog looks whether it waits for a
        FIFO's other end (Linux: ``/proc/<pid>/wchan``) and stops it at once if so.
        """
        out, err = self._process.communicate(self._stdin)
        _track(self, False)
        if self._stopped is GitTimeout:
            raise GitTimeout(f"{self._what} timed out after {self._timeout:g} s", self._timeout)
        if self._stopped is GitBlocked:
            raise GitBlocked(
                f"{self._what} waited to open a named pipe (a FIFO where a file such as "
                ".gitignore was expected); stopped"
            )
        code = self._process.returncode
        if self._ok_codes is not None and code not in self._ok_codes:
            message = os.fsdecode(err).strip().splitlines()
            raise GitExitError(
                f"{self._what} failed ({code}): " + (message[-1] if message else "?"), code, err
            )
        return code, out, err

    def check(self, now: float) -> None:
        """The watchdog's look: stop git past its deadline or waiting on a FIFO."""
        if self._stopped is not None or self._process.returncode is not None:
            return
        if now - self._started >= self._timeout:
            self._stop(GitTimeout)
        elif now - self._started >= _WATCH_POLL_S and waits_for_fifo(self._process.pid):
            self._stop(GitBlocked)

    def _stop(self, why: type[GitError]) -> None:
        """Kill the process group only: the waiting thread still reads git's pipes."""
        self._stopped = why
        with contextlib.suppress(OSError):
            os.killpg(self._process.pid, signal.SIGKILL)

    def kill(self) -> None:
        """Stop git and its process group (if still running) and close its pipes."""
        _track(self, False)
        process = self._process
        if process.returncode is None:
            # Not yet reaped, so the group id is still ours and cannot have been reused.
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except OSError:
                with contextlib.suppress(OSError):
                    process.kill()
            process.wait()
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "FIXED_ENV",
    "GLOBAL_OPTIONS",
    "REPOSITORY_ENV",
    "SUBCOMMAND_OPTIONS",
    "GitBlocked",
    "GitError",
    "GitExitError",
    "GitRefused",
    "GitRunner",
    "GitStartError",
    "GitTimeout",
    "Running",
    "kill_all",
    "sanitized_environment",
    "waits_for_fifo",
    "with_subcommand_options",
]
