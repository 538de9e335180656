"""Calls back into the kernel: the connection (CountTokens goes through it,
:mod:`providers.goplugin.token_counts`) and Log.

The kernel serves ``KernelCallbackService`` on go-plugin broker ID 1; the
broker tells us the address a few ms after the handshake. We dial lazily on
first use. When the kernel answers UNIMPLEMENTED (older kernels) or cannot be
reached (standalone use), counts use the documented fallback formula, which
is exactly what a newer kernel computes without an exact tokenizer; we say so
once in the log.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import sys
import threading
from datetime import UTC, datetime

import grpc
from google.protobuf import timestamp_pb2

from providers._gen.pluggableharness.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from providers._gen.pluggableharness.log.v1 import log_pb2

log = logging.getLogger(__name__)

KERNEL_BROKER_ID = 1
_CALL_TIMEOUT_S = 5.0
_BROKER_WAIT_S = 2.0
_CHANNEL_OPTIONS = [("grpc.enable_http_proxy", 0)]


class KernelConnection:
    """The broker's ConnInfo for ID 1 and the channel to it, dialed as soon as it is known."""

    def __init__(self) -> None:
        self._address: str | None = None
        self._known = threading.Event()
        self._lock = threading.Lock()
        self._channel: grpc.Channel | None = None
        self._stub: kernel_pb2_grpc.KernelCallbackServiceStub | None = None
        self._closed = False

    def offer(self, service_id: int, network: str, address: str) -> None:
        """Called by the broker service for every ConnInfo the host sends."""
        if service_id != KERNEL_BROKER_ID:
            return
        self._address = f"unix:{address}" if network == "unix" else address
        self._known.set()
        threading.Thread(target=self._connect_early, name="kernel-dial", daemon=True).start()

    def _connect_early(self) -> None:
        """Dial now, in the background, so the first turn's CountTokens does not pay
        for the connection (the dial is lazy otherwise)."""
        with self._lock:
            if self._closed or self._address is None or self._channel is not None:
                return
            self._channel = grpc.insecure_channel(self._address, options=_CHANNEL_OPTIONS)
            self._stub = kernel_pb2_grpc.KernelCallbackServiceStub(self._channel)
            channel = self._channel
        with contextlib.suppress(grpc.FutureTimeoutError):
            grpc.channel_ready_future(channel).result(timeout=_BROKER_WAIT_S)

    @property
    def known(self) -> bool:
        """Whether the host has offered the kernel's address (and we are not closed)."""
        return self._known.is_set() and not self._closed

    def close(self) -> None:
        """Stop calling the kernel (its callback server is gone once shutdown begins)."""
        with self._lock:
            self._closed = True
            if self._channel is not None:
                self._channel.close()
                self._channel = None
                self._stub = None

    def stub(
        self, wait: float = _BROKER_WAIT_S
    ) -> kernel_pb2_grpc.KernelCallbackServiceStub | None:
        """A stub for the kernel, or None when there is no kernel to call."""
        if self._closed or not self._known.wait(wait):
            return None
        with self._lock:
            if self._closed or self._address is None:
                return None
            if self._stub is None:
                self._channel = grpc.insecure_channel(self._address, options=_CHANNEL_OPTIONS)
                self._stub = kernel_pb2_grpc.KernelCallbackServiceStub(self._channel)
            return self._stub


_LEVELS: tuple[tuple[int, log_pb2.LogLevel, str], ...] = (
    (logging.ERROR, log_pb2.LOG_LEVEL_ERROR, "ERROR"),
    (logging.WARNING, log_pb2.LOG_LEVEL_WARN, "WARN"),
    (logging.INFO, log_pb2.LOG_LEVEL_INFO, "INFO"),
    (logging.DEBUG, log_pb2.LOG_LEVEL_DEBUG, "DEBUG"),
    (0, log_pb2.LOG_LEVEL_TRACE, "TRACE"),
)


def _level(record: logging.LogRecord) -> tuple[log_pb2.LogLevel, str]:
    for threshold, wire, tag in _LEVELS:
        if record.levelno >= threshold:
            return wire, tag
    return log_pb2.LOG_LEVEL_TRACE, "TRACE"


def log_request(entry: log_pb2.LogEntry) -> kernel_pb2.LogRequest:
    """One entry in both kernels' shapes: upstream main reads ``entry`` (field 2),
    feat/pkg-plugin-sdk reserves 2 and reads the batch ``entries`` (field 3). Each
    rejects the other's shape and ignores unknown fields, so both carry it."""
    return kernel_pb2.LogRequest(entry=entry, entries=[entry])


class KernelLogHandler(logging.Handler):
    """Forwards log records to the kernel's Log; stderr (hclog-tagged) when it cannot.

    Records are queued and sent in order by one daemon thread, so logging never
    blocks a Contribute on the kernel (and no in-flight call is dropped).
    """

    def __init__(self, connection: KernelConnection | None) -> None:
        super().__init__()
        self._connection = connection
        self._queue: queue.SimpleQueue[tuple[kernel_pb2.LogRequest, str]] = queue.SimpleQueue()
        self._sender: threading.Thread | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("grpc"):
            return  # never log our own transport through itself
        try:
            message = self.format(record)
            wire_level, tag = _level(record)
            fallback = f"[{tag}] {record.name}: {message}\n"
            if self._connection is None or not self._connection.known:
                _stderr(fallback)
                return
            when = timestamp_pb2.Timestamp()
            when.FromDatetime(datetime.fromtimestamp(record.created, UTC))
            entry = log_pb2.LogEntry(
                level=wire_level, logger=record.name, message=message, time=when
            )
            self._queue.put((log_request(entry), fallback))
            if self._sender is None:
                self._sender = threading.Thread(target=self._send, name="kernel-log", daemon=True)
                self._sender.start()
        except Exception:  # logging must never take the plugin down
            self.handleError(record)

    def _send(self) -> None:
        while True:
            request, fallback = self._queue.get()
            stub = self._connection.stub(wait=0) if self._connection else None
            if stub is None:
                _stderr(fallback)
                continue
            try:
                stub.Log(request, timeout=_CALL_TIMEOUT_S)
            except grpc.RpcError:
                _stderr(fallback)


def _stderr(line: str) -> None:
    sys.stderr.write(line)
    sys.stderr.flush()


def install_logging(connection: KernelConnection | None, level: int = logging.INFO) -> None:
    """Route the ``providers`` loggers to the kernel (or stderr)."""
    root = logging.getLogger("providers")
    root.setLevel(level)
    root.propagate = False
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = KernelLogHandler(connection)
    handler.setFormatter(logging.Formatter("%(message)s"))
    root.addHandler(handler)
