"""The go-plugin contract in one place: cookie, versions, listen address, the handshake line.

Stdout belongs to the handshake alone: :func:`reserve_stdout` keeps a private
copy of fd 1 for the one line and points fd 1 at stderr, so a stray print from
any library lands on stderr instead of corrupting the host's first read.
This module imports nothing heavy; it runs before grpc is loaded.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from typing import TextIO

COOKIE_KEY = "PLUGGABLEHARNESS_AGENT_PLUGIN"
COOKIE_VALUE = "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake"
CORE_PROTOCOL_VERSION = 1
APP_PROTOCOL_VERSION = 1
SOCKET_DIR_ENV = "PLUGIN_UNIX_SOCKET_DIR"
CLIENT_CERT_ENV = "PLUGIN_CLIENT_CERT"

_UNIX_PATH_LIMIT = 100  # sun_path is ~107 bytes; keep a margin


def is_launched_by_host(environ: Mapping[str, str]) -> bool:
    """True when the magic cookie is present: we are a plugin, not a command."""
    return COOKIE_KEY in environ


def cookie_problem(environ: Mapping[str, str]) -> str | None:
    """Why we must not serve (wrong cookie, AutoMTLS asked), or None."""
    if environ.get(COOKIE_KEY) != COOKIE_VALUE:
        return (
            "This binary is a plugin for the PluggableHarness kernel and is not meant "
            "to be executed directly with a wrong handshake cookie. Run it without "
            f"{COOKIE_KEY} set to preview its output instead."
        )
    if environ.get(CLIENT_CERT_ENV):
        return "AutoMTLS (PLUGIN_CLIENT_CERT) is not supported by this plugin"
    return None


def negotiate_version(environ: Mapping[str, str]) -> int:
    """The app protocol to announce.

    We speak only version 1: announce it when offered, and also when not (the
    host then reports the mismatch itself, which is go-plugin's convention).
    """
    del environ  # read for symmetry with go-plugin; one version leaves no choice
    return APP_PROTOCOL_VERSION


def unix_socket_path(environ: Mapping[str, str], problems: list[str] | None = None) -> str | None:
    """A fresh, short unix socket path; None when no directory can hold one.

    Tried in turn: ``PLUGIN_UNIX_SOCKET_DIR``, the temporary directory, ``/tmp``.
    A directory that cannot be used (missing, not writable, a full disk, a path
    too long for a socket) is passed over and the reason appended to ``problems``.
    """
    seen: set[str] = set()
    try:
        temporary: str | None = tempfile.gettempdir()
    except OSError as exc:  # "No usable temporary directory found"
        temporary = None
        if problems is not None:
            problems.append(f"temporary directory: {exc.strerror or exc}")
    for base in (environ.get(SOCKET_DIR_ENV), temporary, "/tmp"):
        if not base or base in seen:
            continue
        seen.add(base)
        try:
            directory = tempfile.mkdtemp(prefix="ctxp-", dir=base)
        except OSError as exc:
            if problems is not None:
                problems.append(f"{base}: {exc.strerror or exc}")
            continue
        path = os.path.join(directory, "plugin.sock")
        if len(path.encode()) <= _UNIX_PATH_LIMIT:
            return path
        os.rmdir(directory)
        if problems is not None:
            problems.append(f"{base}: too long a path for a unix socket")
    return None


def handshake_line(app_version: int, network: str, address: str) -> str:
    """``CORE|APP|NETWORK|ADDRESS|grpc``: exactly five fields (no AutoMTLS, no mux)."""
    return f"{CORE_PROTOCOL_VERSION}|{app_version}|{network}|{address}|grpc\n"


def reserve_stdout() -> TextIO:
    """Keep fd 1 for the handshake only; from now on fd 1 writes go to stderr."""
    private = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(private, "w", encoding="ascii", newline="\n")


def write_handshake(stream: TextIO, line: str) -> None:
    """Write the one line, flush, and close our copy of the host's pipe."""
    stream.write(line)
    stream.flush()
    stream.close()
