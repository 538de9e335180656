"""The hook command a client runs at each event: hand the input to the repository's
background process and print its answer. Never in the way: it always exits 0, in time,
and prints nothing when anything goes wrong (the reason goes to the log).

Run by ``setup``'s command line through the ``context-providers-hook`` launcher
(``bin/context-providers-hook CLIENT [start=N prompt=N tool=N]``, inside a ``/bin/sh``
guard that exits 0 when it or its interpreter is gone: ``setup.GUARD``), which imports
this module alone; before the launcher, as a file without ``site`` (``PYTHON -S -E -s
.../clients/hook.py``: ``places`` and ``wire`` found beside it). Either way this module
and the two it imports use nothing but ``os``, ``sys``, ``time`` and ``_socket``.
The JSON input is not even parsed here: the hook finds the repository
from its own working directory (the clients start hooks in the session's), and the
background process, which parses the input, answers ``elsewhere`` in the rare case that
the input's ``cwd`` lies in another repository; only then does the hook import ``json``.

Bounds: an answer must arrive within ``CONTEXT_PROVIDERS_HOOK_WAIT_S`` (0.6 s), or
``CONTEXT_PROVIDERS_HOOK_START_S`` (8 s) when the background process had to be started
or the event is a session start (its first turn lists the repository). The hook tells
the background process how long it still waits (``wait=SECONDS``), which answers by then
with what the providers gave in time. A late answer is not lost: without the hook's
``ack`` the background process takes back what it marked as shown, so the next event
sends it.
"""

from __future__ import annotations

import _socket
import os
import sys
import time

if __package__:
    from providers.clients import places, wire
else:  # run as a file: ``places`` and ``wire`` sit beside it, on sys.path[0]
    import places  # type: ignore[import-not-found, no-redef]
    import wire  # type: ignore[import-not-found, no-redef]

ENV_WAIT = "CONTEXT_PROVIDERS_HOOK_WAIT_S"
ENV_START = "CONTEXT_PROVIDERS_HOOK_START_S"
WAIT_S = 0.6
START_S = 8.0
DAEMON_MODULE = "providers.clients.daemon"
CLIENTS = ("claude", "gemini", "codex")
OPTIONS = ("start", "prompt", "tool")


def env_seconds(name: str, default: float, *, most: float = 600.0) -> float:
    """Seconds from the environment variable ``name``: ``default`` when it is unset, not a
    number, not above 0 or not below ``most``. The one reader of the bridge's timing
    variables (the hook's, the MCP server's, the background process's idle time)."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if 0 < value < most else default


def start_seconds() -> float:
    """How long a caller that must start the background process waits for its socket."""
    return env_seconds(ENV_START, START_S)


def wait_seconds() -> float:
    """How long a hook waits for the answer to an event other than a session start."""
    return env_seconds(ENV_WAIT, WAIT_S)


def log(message: str, who: str = "hook") -> None:
    """One line in the bridge's log, signed ``who[pid]`` (the MCP server signs ``mcp``);
    never raises."""
    try:
        path = places.log_path()
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        line = f"{stamp} {who}[{os.getpid()}] {message}\n".encode("utf-8", "replace")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        pass


def start_background(root: str) -> None:
    """Start the background process of ``root``, detached (its own session, not our
    child: a client that kills the hook's process group leaves it alone)."""
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:  # the child: never returns
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(null, 2)  # the background process logs to the log file itself
        os.chdir("/")
        # -P: "/" is the working directory now, and must not be first on sys.path either
        os.execv(sys.executable, [sys.executable, "-P", "-m", DAEMON_MODULE, root])
    finally:
        os._exit(127)


def connect(path: str, root: str, deadline: float) -> tuple[_socket.socket, bool]:
    """A connection to ``root``'s background process (its socket at ``path``), starting
    it when there is none; and whether it was started now. The one way in for the hooks
    and the MCP server alike."""
    try:
        return wire.connect(path, max(0.05, deadline - time.monotonic())), False
    except (FileNotFoundError, ConnectionRefusedError):
        pass
    start_background(root)
    while True:
        try:
            return wire.connect(path, max(0.05, deadline - time.monotonic())), True
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise TimeoutError("the background process did not start in time") from None
            time.sleep(0.01)


def ask(client: str, options: tuple[str, ...], root: str, cwd: str, data: bytes) -> bytes | None:
    """The answer of ``root``'s background process to one hook input: bytes to print,
    or None when the input belongs to another repository."""
    started = time.monotonic()
    starting = b'"SessionStart"' in data
    wait = wait_seconds()
    first = start_seconds()
    path = places.socket_path(places.runtime_dir(create=True), root)
    sock, spawned = connect(path, root, started + first)
    try:
        deadline = started + (first if spawned or starting else wait)
        body = os.fsencode(cwd) + b"\0" + data
        left = f"wait={max(0.0, deadline - time.monotonic()):.3f}"  # its answer's deadline
        sock.sendall(wire.encode("hook", body, (client, *options, left)))
        verb, _, answer = wire.Reader(sock).message(deadline)
        if verb == "elsewhere":
            return None
        if verb != "ok":
            raise wire.WireError(f"{verb}: {answer.decode('utf-8', 'replace')}")
        if answer:
            sys.stdout.buffer.write(answer)
            sys.stdout.flush()
        try:  # noqa: SIM105 (contextlib costs the hook 2 ms of imports)
            sock.sendall(wire.ACK)
        except OSError:
            pass
        return answer
    finally:
        sock.close()


def _input_cwd(data: bytes) -> str | None:
    import json  # the rare path: the input's cwd is in another repository

    try:
        cwd = json.loads(data).get("cwd")
    except (ValueError, AttributeError):
        return None
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None


def run(args: list[str], data: bytes) -> None:
    client = args[0] if args else ""
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r} (one of {', '.join(CLIENTS)})")
    options = tuple(a for a in args[1:] if a.partition("=")[0] in OPTIONS)
    cwd = os.getcwd()
    root = places.repository_root(cwd)
    if root is not None and ask(client, options, root, cwd, data) is not None:
        return
    other = _input_cwd(data)
    if other is None or not os.path.isdir(other):
        return
    other_root = places.repository_root(other)
    if other_root is not None and other_root != root:
        ask(client, options, other_root, other, data)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        data = sys.stdin.buffer.read()
        run(args, data)
    except BaseException as error:  # never in the way: the session goes on without us
        if isinstance(error, KeyboardInterrupt | SystemExit):
            return 0
        log(f"{' '.join(args[:1])}: {type(error).__name__}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
