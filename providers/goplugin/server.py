"""Plugin process runtime: build the server (testable alone), then serve until told to stop.

Order matters (go-plugin.md section 10): stdout is reserved and the cookie
checked before grpc is imported by the caller's ``run``; the server accepts
connections before the handshake line is written; the provider's heavy
imports start only after the line is out.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Mapping
from concurrent import futures
from dataclasses import dataclass
from typing import NoReturn

import grpc

from providers.goplugin import handshake
from providers.goplugin.callback import KernelConnection, install_logging
from providers.goplugin.context_service import ContextService, register_context_service
from providers.goplugin.services import Lifecycle, register_plugin_services
from providers.goplugin.token_counts import TokenCountCache
from providers.registry import ProviderHandle
from providers.repository.gitexec import kill_all

log = logging.getLogger(__name__)

_MAX_MESSAGE = 256 * 1024 * 1024  # the host may send large prior_sections
_WORKERS = 8  # the broker stream pins one; Contribute is serialised anyway
_PARENT_POLL_S = 0.1
_EXIT_BACKSTOP_S = 1.0
"""How long the main thread has to shut down before the parent watch exits for it."""


@dataclass
class PluginServer:
    """A bound, started server and what it needs to be stopped."""

    server: grpc.Server
    network: str
    address: str
    lifecycle: Lifecycle
    connection: KernelConnection
    handle: ProviderHandle
    socket_dir: str | None


def create_server(provider_spec: str, environ: Mapping[str, str]) -> PluginServer:
    """Bind a unix socket (or 127.0.0.1:0), register every service, start serving."""
    lifecycle = Lifecycle()
    connection = KernelConnection()
    handle = ProviderHandle(provider_spec)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=_WORKERS),
        options=[
            ("grpc.max_receive_message_length", _MAX_MESSAGE),
            ("grpc.max_send_message_length", _MAX_MESSAGE),
        ],
    )
    register_plugin_services(server, connection, lifecycle)
    register_context_service(server, ContextService(handle, TokenCountCache(connection), environ))
    network, address, socket_dir = _listen(server, environ)
    server.start()
    return PluginServer(server, network, address, lifecycle, connection, handle, socket_dir)


def _listen(server: grpc.Server, environ: Mapping[str, str]) -> tuple[str, str, str | None]:
    """Bind a unix socket in the first usable directory, else TCP on loopback (which
    go-plugin hosts accept as well); say on stderr why a directory was passed over."""
    problems: list[str] = []
    path = handshake.unix_socket_path(environ, problems)
    if path is not None:
        try:
            if server.add_insecure_port(f"unix:{path}"):
                if problems:
                    _say(f"socket directory not usable ({'; '.join(problems)}); using {path}")
                return "unix", path, os.path.dirname(path)
            problems.append(f"{path}: cannot listen there")
        except RuntimeError as exc:  # grpcio: "Failed to bind"
            problems.append(f"{path}: {exc}")
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(path))
    port = server.add_insecure_port("127.0.0.1:0")
    _say(f"no unix socket ({'; '.join(problems)}); listening on 127.0.0.1:{port}")
    return "tcp", f"127.0.0.1:{port}", None


def _say(line: str) -> None:
    """go-plugin shows a plugin's stderr lines in the host's log (this one at WARN)."""
    sys.stderr.write(f"[WARN] {line}\n")
    sys.stderr.flush()


def serve(provider_spec: str, environ: Mapping[str, str]) -> int:
    """Run as a go-plugin plugin until the host stops us; returns the exit code."""
    parent = os.getppid()  # before the handshake: the host may exit right after reading it
    handshake_out = handshake.reserve_stdout()
    problem = handshake.cookie_problem(environ)
    if problem:
        sys.stderr.write(problem + "\n")
        return 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host decides when we stop
    plugin = create_server(provider_spec, environ)
    install_logging(plugin.connection)
    version = handshake.negotiate_version(environ)
    handshake.write_handshake(
        handshake_out, handshake.handshake_line(version, plugin.network, plugin.address)
    )
    plugin.handle.load_in_background()
    _watch_parent(plugin.lifecycle, parent)
    try:
        plugin.lifecycle.stopping.wait()
    finally:
        _shutdown(plugin)
    return 0  # pragma: no cover: _shutdown never returns


def _watch_parent(lifecycle: Lifecycle, parent: int) -> None:
    """Nothing kills a plugin whose host died without Kill(): notice and leave.

    Once stopping, for whatever reason, the main thread shuts down and exits;
    should it not have within :data:`_EXIT_BACKSTOP_S` (something it waits for is
    held by a turn), this thread kills the git runs and exits itself. A turn busy
    in Python cannot stop it: the interpreter switches threads every 5 ms.
    """

    def poll() -> None:
        while not lifecycle.stopping.wait(_PARENT_POLL_S):
            if os.getppid() != parent:
                lifecycle.stop("host process went away")
        time.sleep(_EXIT_BACKSTOP_S)
        kill_all()
        os._exit(0)

    threading.Thread(target=poll, name="parent-watch", daemon=True).start()


def _shutdown(plugin: PluginServer) -> NoReturn:
    """Stop quickly (the host kills us after 2 s); no kernel calls from here on.

    Nothing here may keep the process: the exit comes last whatever happens before
    it. (The exit line to a dead host's stderr raised BrokenPipeError, and the
    interpreter then waited for the busy turn's worker thread: minutes.)
    """
    started = time.monotonic()
    try:
        plugin.connection.close()
        install_logging(None)
        plugin.server.stop(grace=0.2).wait(0.5)
        plugin.handle.close(timeout=0.2)
        kill_all()  # runs a turn still waits for, abandoned with it: no git process outlives us
        if plugin.socket_dir:  # grpcio may have removed the socket already; the directory is ours
            with contextlib.suppress(OSError):
                os.unlink(plugin.address)
            with contextlib.suppress(OSError):
                os.rmdir(plugin.socket_dir)
        with contextlib.suppress(OSError, ValueError):  # the host's end may be gone
            sys.stderr.write(
                f"[DEBUG] plugin exiting: {plugin.lifecycle.reason} "
                f"({(time.monotonic() - started) * 1000:.0f} ms)\n"
            )
            sys.stderr.flush()
    finally:
        os._exit(0)  # do not wait for executor threads
