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

import grpc

from providers.goplugin import handshake
from providers.goplugin.callback import KernelConnection, TokenCountCache, install_logging
from providers.goplugin.context_service import ContextService, register_context_service
from providers.goplugin.services import Lifecycle, register_plugin_services
from providers.registry import ProviderHandle
from providers.repository.gitexec import kill_all

log = logging.getLogger(__name__)

_MAX_MESSAGE = 256 * 1024 * 1024  # the host may send large prior_sections
_WORKERS = 8  # the broker stream pins one; Contribute is serialised anyway
_PARENT_POLL_S = 0.1


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
    plugin.lifecycle.stopping.wait()
    _shutdown(plugin)
    return 0


def _watch_parent(lifecycle: Lifecycle, parent: int) -> None:
    """Nothing kills a plugin whose host died without Kill(): notice and leave."""

    def poll() -> None:
        while not lifecycle.stopping.wait(_PARENT_POLL_S):
            if os.getppid() != parent:
                lifecycle.stop("host process went away")

    threading.Thread(target=poll, name="parent-watch", daemon=True).start()


def _shutdown(plugin: PluginServer) -> None:
    """Stop quickly (the host kills us after 2 s); no kernel calls from here on."""
    plugin.connection.close()
    install_logging(None)
    started = time.monotonic()
    plugin.server.stop(grace=0.2).wait(0.5)
    plugin.handle.close(timeout=0.2)
    kill_all()  # runs a turn still waits for, abandoned with it: no git process outlives us
    if plugin.socket_dir:  # grpcio may have removed the socket already; the directory is ours
        with contextlib.suppress(OSError):
            os.unlink(plugin.address)
        with contextlib.suppress(OSError):
            os.rmdir(plugin.socket_dir)
    sys.stderr.write(
        f"[DEBUG] plugin exiting: {plugin.lifecycle.reason} "
        f"({(time.monotonic() - started) * 1000:.0f} ms)\n"
    )
    sys.stderr.flush()
    os._exit(0)  # do not wait for executor threads
