"""The bridge's messages on its Unix socket, and the client side of a call.

One message is a header line of ASCII words, ``VERB LENGTH [ARG ...]\\n``, then
``LENGTH`` bytes of body. A call is one connection: the caller sends a request, the
background process answers, and a hook that has written the answer to its stdout
sends ``ack 0`` (the process keeps what a session was shown only once that arrives: a
hook killed or timed out mid-call loses nothing, the next call sends it again).

Verbs (the background process's side is :mod:`providers.clients.answers`):

- ``hook LEN CLIENT [NAME=VALUE ...]`` with body ``CWD\\0INPUT``: a client's hook
  input (its JSON, passed through untouched), the hook's working directory, and
  options (``start=``, ``prompt=``, ``tool=``: token budgets). Answer ``ok LEN`` with
  what the hook prints (maybe nothing), or ``elsewhere 0`` when the input's ``cwd`` is
  in another repository than the one asked (the hook then asks that one).
- ``section LEN`` with a JSON body: one provider's answer on demand, for an MCP server
  (``{"kind": "scoped_docs", "files": [...], "session_id": ..., "budget": N}``);
  answer ``ok LEN`` with JSON ``{"sections": [{"label", "text", "tokens"}]}``.
- ``status 0``: JSON about the process (root, pid, sessions, providers, uptime).
- ``stop 0``: the process exits after answering.
- Any failure: ``error LEN`` with a one-line reason.

Imported by the hook command on every call: only ``os`` and ``_socket`` (``socket``
itself costs 7 ms of imports; the C module is all a client needs).
"""

from __future__ import annotations

import _socket
import time

MAX_HEADER = 4096
ACK = b"ack 0\n"


class WireError(OSError):
    """The other side spoke something else, or went away mid-message."""


def header(verb: str, length: int, args: tuple[str, ...] = ()) -> bytes:
    words = [verb, str(length), *args]
    if any(not w or any(c.isspace() for c in w) for w in words):
        raise ValueError(f"header words must be non-empty without spaces: {words!r}")
    return (" ".join(words) + "\n").encode("ascii")


def encode(verb: str, body: bytes = b"", args: tuple[str, ...] = ()) -> bytes:
    return header(verb, len(body), args) + body


def parse_header(line: bytes) -> tuple[str, int, tuple[str, ...]]:
    try:
        words = line.decode("ascii").split()
        verb, length = words[0], int(words[1])
    except (UnicodeDecodeError, IndexError, ValueError) as error:
        raise WireError(f"bad header {line[:80]!r}") from error
    if length < 0:
        raise WireError(f"bad length in {line[:80]!r}")
    return verb, length, tuple(words[2:])


class Reader:
    """Reads messages from a connected socket, each before ``deadline`` (monotonic)."""

    def __init__(self, sock: _socket.socket) -> None:
        self._sock = sock
        self._buffer = b""

    def _fill(self, deadline: float | None) -> None:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            self._sock.settimeout(left)
        chunk = self._sock.recv(65536)
        if not chunk:
            raise WireError("connection closed mid-message")
        self._buffer += chunk

    def message(self, deadline: float | None) -> tuple[str, tuple[str, ...], bytes]:
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_HEADER:
                raise WireError("header too long")
            self._fill(deadline)
        line, _, self._buffer = self._buffer.partition(b"\n")
        verb, length, args = parse_header(line)
        while len(self._buffer) < length:
            self._fill(deadline)
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return verb, args, body


def connect(path: str, timeout: float) -> _socket.socket:
    """A connection to the socket at ``path``; raises OSError (ENOENT, ECONNREFUSED...)."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
    except BaseException:
        sock.close()
        raise
    return sock


def call(
    path: str, verb: str, body: bytes = b"", *, timeout: float, args: tuple[str, ...] = ()
) -> tuple[str, tuple[str, ...], bytes]:
    """One request and its answer (no ack): for ``status``, ``section`` and ``stop``."""
    deadline = time.monotonic() + timeout
    sock = connect(path, timeout)
    try:
        sock.sendall(encode(verb, body, args))
        return Reader(sock).message(deadline)
    finally:
        sock.close()
