"""Launch a plugin exactly as the kernel does (hashicorp/go-plugin, gRPC) and stop it likewise.

Environment: PATH, HOME, TMPDIR, the XDG base directories when set (a plugin keeps
its caches there, the file tree's history; a user who moved them expects that
honoured), OTEL_RESOURCE_ATTRIBUTES and go-plugin's own variables only
(``full_env=True`` adds the whole environment, as today's kernel really does). The
first stdout line is the handshake; the broker stream offers our
KernelCallbackService as ID 1; teardown follows go-plugin's
Kill(): close the broker, Shutdown, close the connection, wait 2 s, kill.
A launch that fails closes everything it opened (the process, its pipes, the
callback server); ``CONTEXT_HOST_SOCKET_DIR`` puts every unix socket in a
directory of the caller's (short whatever ``TMPDIR`` is).
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from google.protobuf import empty_pb2

from providers._gen.pluggableharness.context.v1 import context_pb2_grpc
from providers._gen.plugin import (
    grpc_broker_pb2,
    grpc_broker_pb2_grpc,
    grpc_controller_pb2,
    grpc_controller_pb2_grpc,
    grpc_stdio_pb2_grpc,
)
from providers.host.callback_server import CallbackServer, KernelCallbacks, start_callback_server
from providers.host.plugin_start import LaunchError, plugin_environment

START_TIMEOUT_S = 60.0
KILL_WAIT_S = 2.0
SOCKET_DIR_ENV = "CONTEXT_HOST_SOCKET_DIR"
"""Where this host puts its unix sockets, when set: its callback server's, and its
plugins' (passed to them as ``PLUGIN_UNIX_SOCKET_DIR``). A short directory keeps socket
paths under the 108-byte limit whatever ``TMPDIR`` is; the test suite sets one."""


@dataclass(frozen=True)
class Handshake:
    core: int
    app: int
    network: str
    address: str
    protocol: str


def parse_handshake(line: str) -> Handshake:
    """go-plugin's parsing of the first stdout line (trimmed; 5+ fields)."""
    parts = line.strip().split("|")
    if len(parts) < 4:
        raise LaunchError(f"Unrecognized remote plugin message: {line.strip()!r}")
    try:
        core, app = int(parts[0]), int(parts[1])
    except ValueError as exc:
        raise LaunchError(f"Unrecognized remote plugin message: {line.strip()!r}") from exc
    if core != 1:
        raise LaunchError(f"incompatible core API version with plugin: {core}")
    if app != 1:
        raise LaunchError(f"incompatible API version with plugin: {app}")
    network, address = parts[2], parts[3]
    if network not in ("unix", "tcp"):
        raise LaunchError(f"unknown network type {network!r}")
    protocol = parts[4] if len(parts) > 4 else "netrpc"
    if protocol != "grpc":
        raise LaunchError(f"unsupported plugin protocol {protocol!r}")
    return Handshake(core, app, network, address, protocol)


@dataclass
class PluginProcess:
    """A running plugin: its process, gRPC channel, ContextService stub and callbacks."""

    local_name: str
    process: subprocess.Popen[bytes]
    channel: grpc.Channel
    stub: context_pb2_grpc.ContextServiceStub
    callbacks: KernelCallbacks
    callback_server: CallbackServer
    handshake: Handshake
    launch_seconds: float
    stderr_lines: list[str] = field(default_factory=list)
    _broker_done: threading.Event = field(default_factory=threading.Event)
    _readers: list[threading.Thread] = field(default_factory=list)
    _closed: bool = False

    @property
    def closed(self) -> bool:
        return self._closed

    @classmethod
    def launch(
        cls,
        command: Sequence[str],
        *,
        local_name: str,
        callbacks: KernelCallbacks | None = None,
        full_env: bool = False,
        env_overrides: dict[str, str] | None = None,
        start_timeout: float = START_TIMEOUT_S,
    ) -> PluginProcess:
        socket_dir = os.environ.get(SOCKET_DIR_ENV) or None
        env = plugin_environment(local_name, full_env=full_env)
        if socket_dir:
            env[SOCKET_DIR_ENV] = socket_dir  # a host the plugin starts uses it too
            env["PLUGIN_UNIX_SOCKET_DIR"] = socket_dir
        env.update(env_overrides or {})
        started = time.perf_counter()
        process = subprocess.Popen(
            list(command),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        stderr_lines: list[str] = []
        readers = [_drain(process.stderr, stderr_lines)]
        opened: list[grpc.Channel | CallbackServer] = []
        try:
            line = _first_line(process, start_timeout)
            launch_seconds = time.perf_counter() - started
            handshake = parse_handshake(line)
            assert process.stdout is not None
            readers.append(_drain(process.stdout, None))  # later stdout is read and dropped
            target = (
                f"unix:{handshake.address}" if handshake.network == "unix" else handshake.address
            )
            channel = grpc.insecure_channel(
                target,
                options=[
                    ("grpc.enable_http_proxy", 0),
                    ("grpc.max_receive_message_length", 2**31 - 1),
                    ("grpc.max_send_message_length", 2**31 - 1),
                ],
            )
            opened.append(channel)
            callbacks = callbacks or KernelCallbacks(label=local_name)
            callback_server = start_callback_server(callbacks, socket_dir)
            opened.append(callback_server)
            plugin = cls(
                local_name=local_name,
                process=process,
                channel=channel,
                stub=context_pb2_grpc.ContextServiceStub(channel),
                callbacks=callbacks,
                callback_server=callback_server,
                handshake=handshake,
                launch_seconds=launch_seconds,
                stderr_lines=stderr_lines,
                _readers=readers,
            )
            plugin._start_broker()
            plugin._start_stdio()
        except BaseException:  # a failed launch leaves nothing open: process, pipes, sockets
            for thing in reversed(opened):
                with contextlib.suppress(Exception):
                    thing.stop() if isinstance(thing, CallbackServer) else thing.close()
            if process.poll() is None:
                process.kill()
            process.wait()
            _close_pipes(process, readers)
            raise
        return plugin

    def _start_broker(self) -> None:
        """Open StartStream and offer the callback server as broker ID 1."""
        offers: queue.Queue[grpc_broker_pb2.ConnInfo | None] = queue.Queue()
        offers.put(
            grpc_broker_pb2.ConnInfo(
                service_id=1, network="unix", address=self.callback_server.address
            )
        )
        done = self._broker_done

        def requests() -> Iterator[grpc_broker_pb2.ConnInfo]:
            while True:
                item = offers.get()
                if item is None:
                    return
                yield item

        def closer() -> None:
            done.wait()
            offers.put(None)

        stream = grpc_broker_pb2_grpc.GRPCBrokerStub(self.channel).StartStream(requests())
        threading.Thread(target=closer, daemon=True).start()
        threading.Thread(target=_consume, args=(stream,), daemon=True).start()

    def _start_stdio(self) -> None:
        stream = grpc_stdio_pb2_grpc.GRPCStdioStub(self.channel).StreamStdio(empty_pb2.Empty())
        threading.Thread(target=_consume, args=(stream,), daemon=True).start()

    def close(self) -> float:
        """go-plugin's Kill(); returns how long the process took to exit (0 once closed)."""
        if self._closed:
            return 0.0
        self._closed = True
        started = time.perf_counter()
        self._broker_done.set()
        self.callback_server.stop()
        # go-plugin ignores a failed Shutdown too: the plugin may exit before answering.
        with contextlib.suppress(grpc.RpcError):
            grpc_controller_pb2_grpc.GRPCControllerStub(self.channel).Shutdown(
                grpc_controller_pb2.Empty(), timeout=KILL_WAIT_S
            )
        self.channel.close()
        try:
            self.process.wait(KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        took = time.perf_counter() - started
        _close_pipes(self.process, self._readers)
        self._remove_socket()
        return took

    def _remove_socket(self) -> None:
        """A plugin that was killed could not remove its unix socket: the host does, with
        the plugin's own directory around it (``ctxp-*``), never anything else."""
        if self.handshake.network != "unix":
            return
        path = Path(self.handshake.address)
        with contextlib.suppress(OSError):
            if path.is_socket():
                path.unlink()
        with contextlib.suppress(OSError):
            if path.parent.name.startswith("ctxp-"):
                path.parent.rmdir()


def _consume(stream: Iterator[object]) -> None:
    try:
        for _ in stream:
            pass
    except grpc.RpcError:
        pass


def _first_line(process: subprocess.Popen[bytes], timeout: float) -> str:
    assert process.stdout is not None
    result: list[bytes] = []
    reader = threading.Thread(target=lambda: result.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    if not result:
        process.kill()  # ends the read: the pipes may then be closed
        reader.join(5.0)
        raise LaunchError(f"timeout waiting for the plugin handshake ({timeout:.0f} s)")
    if not result[0]:
        code = process.wait()
        raise LaunchError(f"plugin exited before we could connect (exit code {code})")
    return result[0].decode("utf-8", "replace")


def _drain(stream: object, sink: list[str] | None) -> threading.Thread:
    def run() -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            if sink is not None:
                sink.append(raw.decode("utf-8", "replace").rstrip("\n"))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _close_pipes(process: subprocess.Popen[bytes], readers: list[threading.Thread]) -> None:
    for reader in readers:
        reader.join(1.0)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
