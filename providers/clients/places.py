"""Where the bridge keeps things: each repository's socket, the log, the session memory.

Read by the hook command on every call, so this module imports only ``os`` (already
loaded when Python starts) and must stay that way: no ``pathlib``, no ``hashlib``.

- Sockets live in one directory only their user can open: ``$XDG_RUNTIME_DIR/
  context-providers`` when that is ours and short enough, else ``/tmp/ctxp-<uid>``;
  created 0700 and refused when it is not ours or others may enter it. A socket path
  must fit ``sun_path`` (108 bytes with its NUL), so a long runtime directory falls
  back to the short one.
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
    found.append(f"/tmp/ctxp-{os.getuid()}")
    return found


def runtime_dir(*, create: bool) -> str:
    """The socket directory: the first candidate that is ours, 0700, and short enough.

    ``create`` makes it (the background process); the hook only looks.
    """
    problem = ""
    for directory in _candidates():
        if len(os.fsencode(directory)) + 1 + len("0123456789abcdef.sock") > SUN_PATH_MAX:
            problem = f"{directory}: too long a path for a socket"
            continue
        if create:
            try:
                os.mkdir(directory, 0o700)
            except FileExistsError:
                pass
            except OSError as error:
                problem = f"{directory}: {error.strerror}"
                continue
        try:
            info = os.lstat(directory)
        except OSError as error:
            problem = f"{directory}: {error.strerror}"
            continue
        if not os.path.isdir(directory) or os.path.islink(directory):
            problem = f"{directory}: not a directory"
        elif info.st_uid != os.getuid():
            problem = f"{directory}: owned by another user"
        elif info.st_mode & 0o077:
            problem = f"{directory}: others may enter it (mode {info.st_mode & 0o777:o})"
        else:
            return directory
    raise PlaceError(problem or "no directory for the bridge's sockets")


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
