"""Where the bridge keeps things: each repository's socket, the log, the session memory.

Read by the hook command on every call, so this module imports only ``os`` (already
loaded when Python starts) and must stay that way: no ``pathlib``, no ``hashlib``.

- Sockets live in one directory only their user can open: ``$XDG_RUNTIME_DIR/
  context-providers`` when that is ours and short enough, else ``/tmp/ctxp-<uid>``,
  else ``<state>/run``, else a random-named ``/tmp/ctxp-<uid>-<hex>`` recorded in
  ``<state>/runtime-dir``; each created 0700 and passed over when it is not ours (any
  local user can make ``/tmp/ctxp-<uid>`` first), others may enter it, or a socket in
  it would not fit ``sun_path`` (108 bytes with its NUL). Why a place was passed over
  is said by the background process (its log, ``doctor``).
- One socket per repository, named by a 64-bit FNV-1a hash of the root's path (the
  background process checks the root it is asked about, so a collision is an answer
  refused, never a wrong one).
- The log and the session memory live under ``$XDG_STATE_HOME/context-providers``
  (``~/.local/state/context-providers``).
"""

from __future__ import annotations

import os

APP = "context-providers"
SUN_PATH_MAX = 107
"""Bytes a Unix socket path may have (``sun_path`` is 108 with the closing NUL)."""

ENV_RUNTIME = "XDG_RUNTIME_DIR"
ENV_STATE = "XDG_STATE_HOME"
SHARED_TMP = "/tmp"
RECORD = "runtime-dir"
"""The file in the state directory naming a random-named socket directory, when one is used."""

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


class PlaceError(OSError):
    """The socket directory cannot be used safely (not ours, open to others)."""


def root_key(root: str) -> str:
    """A short, stable name for a repository root: 16 hex digits of FNV-1a 64."""
    value = _FNV_OFFSET
    for byte in os.fsencode(root):
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def _candidates() -> list[str]:
    found = []
    runtime = os.environ.get(ENV_RUNTIME, "")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        found.append(os.path.join(runtime, APP))
    found.append(f"{SHARED_TMP}/ctxp-{os.getuid()}")
    found.append(os.path.join(state_dir(), "run"))
    return found


def _fits(directory: str) -> bool:
    """Whether a socket of ours in ``directory`` fits ``sun_path``."""
    return len(os.fsencode(directory)) + 1 + len("0123456789abcdef.sock") <= SUN_PATH_MAX


def unusable(directory: str) -> str:
    """Why ``directory`` may not hold our sockets ("" when it may): it must be a real
    directory (no symbolic link), ours, and closed to everyone else."""
    try:
        info = os.lstat(directory)
    except OSError as error:
        return f"{directory}: {error.strerror}"
    if os.path.islink(directory) or not os.path.isdir(directory):
        return f"{directory}: not a directory"
    if info.st_uid != os.getuid():
        return (
            f"{directory}: owned by another user (uid {info.st_uid}), who may have made it "
            "to stop the bridge or to reach its sockets; not used"
        )
    if info.st_mode & 0o077:
        return f"{directory}: others may enter it (mode {info.st_mode & 0o777:o}); not used"
    return ""


def _make(directory: str) -> str:
    """Create ``directory`` 0700 (in the state directory, its parents too); why not (""
    when made or there)."""
    try:
        if directory.startswith(state_dir() + os.sep):
            os.makedirs(os.path.dirname(directory), mode=0o700, exist_ok=True)
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        return f"{directory}: {error.strerror}"
    return ""


def find_runtime_dir(*, create: bool) -> tuple[str, list[str]]:
    """The socket directory, and why each place before it was passed over.

    The first candidate that is ours, 0700 and short enough; when none is (another
    user made ``/tmp/ctxp-<uid>`` first and the state directory is too long a path), a
    directory of a random name in ``/tmp``, recorded in the state directory (only we
    can write there) so that every process of ours finds the same one. ``create``
    makes what is missing (the background process and the hook); ``doctor`` only looks.
    Raises :class:`PlaceError` when there is no place at all.
    """
    problems: list[str] = []
    for directory in _candidates():
        if not _fits(directory):
            problems.append(f"{directory}: too long a path for a socket")
            continue
        if not create and not os.path.lexists(directory):
            return directory, problems  # where a process that may create would make it
        problem = (create and _make(directory)) or unusable(directory)
        if not problem:
            return directory, problems
        problems.append(problem)
    directory = _recorded(create, problems)
    if directory:
        return directory, problems
    raise PlaceError("; ".join(problems) or "no directory for the bridge's sockets")


def runtime_dir(*, create: bool) -> str:
    """The socket directory (:func:`find_runtime_dir`, without its reasons)."""
    return find_runtime_dir(create=create)[0]


def _recorded(create: bool, problems: list[str]) -> str:
    """The random-named directory recorded in the state directory (made and recorded
    when ``create`` and there is none usable); "" when there is none."""
    record = os.path.join(state_dir(), RECORD)
    known = _read(record)
    if known and os.path.isabs(known) and _fits(known) and not unusable(known):
        return known
    if not create:
        return ""
    prefix = f"{SHARED_TMP}/ctxp-{os.getuid()}-"
    for _ in range(16):  # another user cannot guess the name; a clash is only bad luck
        directory = prefix + os.urandom(8).hex()
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            continue
        except OSError as error:
            problems.append(f"{directory}: {error.strerror}")
            return ""
        if unusable(directory):
            continue
        try:
            os.makedirs(os.path.dirname(record), mode=0o700, exist_ok=True)
            _write(record, directory)
        except OSError as error:
            problems.append(f"{record}: {error.strerror}")
            os.rmdir(directory)
            return ""
        # Two processes that made one each at once: the one recorded last is used by all.
        chosen = _read(record)
        if chosen != directory and chosen and not unusable(chosen):
            os.rmdir(directory)
            return chosen
        return directory
    return ""


def _read(path: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        return os.fsdecode(os.read(fd, 4096)).strip()
    except OSError:
        return ""
    finally:
        os.close(fd)


def _write(path: str, text: str) -> None:
    """``text`` in ``path``, replaced whole (never seen half written)."""
    part = f"{path}.{os.getpid()}"
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, os.fsencode(text + "\n"))
    finally:
        os.close(fd)
    os.replace(part, path)


def socket_path(directory: str, root: str) -> str:
    return os.path.join(directory, root_key(root) + ".sock")


def lock_path(directory: str, root: str) -> str:
    """Held by the one background process of ``root`` for as long as it runs."""
    return os.path.join(directory, root_key(root) + ".lock")


def state_dir() -> str:
    """``$XDG_STATE_HOME/context-providers``, or ``~/.local/state/context-providers``."""
    base = os.environ.get(ENV_STATE, "")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, APP)


def log_path() -> str:
    return os.path.join(state_dir(), "bridge.log")


def memory_dir(root: str) -> str:
    """Where the sessions of ``root`` keep what they were shown (across restarts)."""
    return os.path.join(state_dir(), "sessions", root_key(root))


def repository_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` holding ``.git``, or None.

    The hook's quick guess, by ``lstat`` alone (``repository.layout.find_root`` is the
    rule; the background process checks the guess against it and answers "elsewhere"
    when they differ).
    """
    current = os.path.realpath(directory)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
