"""Calls back into the kernel: CountTokens (cached, parallel, with the fallback) and Log.

The kernel serves ``KernelCallbackService`` on go-plugin broker ID 1; the
broker tells us the address a few ms after the handshake. We dial lazily on
first use. When the kernel answers UNIMPLEMENTED (older kernels) or cannot be
reached (standalone use), counts use the documented fallback formula, which
is exactly what a newer kernel computes without an exact tokenizer; we say so
once in the log.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import grpc
from google.protobuf import timestamp_pb2

from providers._gen.pluggableharness.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from providers._gen.pluggableharness.log.v1 import log_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.core.budget import fallback_token_count
from providers.goplugin.convert import text_block

log = logging.getLogger(__name__)

KERNEL_BROKER_ID = 1
_CALL_TIMEOUT_S = 5.0
_BROKER_WAIT_S = 2.0
_CACHE_LIMIT = 4096
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


class TokenCountCache:
    """Kernel counts by (model id, text hash): a warm turn costs no callbacks.

    What the kernel answers is kept. A kernel without CountTokens (UNIMPLEMENTED,
    as upstream's today) is asked once: from then on the fallback formula counts
    directly, which is what such a kernel computes itself, so those counts are
    kept too. A count that fell back because the call failed for a passing
    reason (UNAVAILABLE, DEADLINE_EXCEEDED, ...) is not kept: the next text asks
    again, and :attr:`epoch` moves on so that answers rendered with such counts
    are counted again on the next turn (the kernel's recount may be larger).
    """

    def __init__(
        self,
        connection: KernelConnection | None,
        *,
        local: Callable[[str], int] | None = None,
    ) -> None:
        """``local``: the kernel's own count, when the kernel runs the provider in its
        own process (``host.inprocess``): called directly, never failing."""
        self._connection = connection
        self._local = local
        self._cache: dict[tuple[str, bytes], int] = {}
        self._lock = threading.Lock()
        self._logged: set[str] = set()
        self._unimplemented = False
        self.epoch = 0
        """How many counts so far fell back for a passing failure."""

    def count_many(self, model_id: str, texts: Sequence[str]) -> list[int]:
        keys = [(model_id, hashlib.sha256(t.encode("utf-8")).digest()) for t in texts]
        with self._lock:
            known = [self._cache.get(k) for k in keys]
        missing = [i for i, v in enumerate(known) if v is None]
        if missing:
            counted = self._count_remote(model_id, [texts[i] for i in missing])
            with self._lock:
                if len(self._cache) > _CACHE_LIMIT:
                    self._cache.clear()
                for i, (value, keep) in zip(missing, counted, strict=True):
                    if keep:
                        self._cache[keys[i]] = value
                    known[i] = value
        return [v if v is not None else 0 for v in known]

    def _count_remote(self, model_id: str, texts: list[str]) -> list[tuple[int, bool]]:
        """(count, whether to keep it) per text."""
        if self._local is not None:
            return [(self._local(t), True) for t in texts]
        if self._unimplemented:
            return [(fallback_token_count(t), True) for t in texts]
        stub = self._connection.stub() if self._connection else None
        if stub is None:
            self._say_once("no kernel connection", "counting tokens with ceil(utf8_bytes / 4)")
            return [(fallback_token_count(t), True) for t in texts]
        model_ref = model_pb2.ModelRef(id=model_id)
        requests = [
            kernel_pb2.CountTokensRequest(content=[text_block(t)], model_ref=model_ref)
            for t in texts
        ]
        answers: list[Callable[[], kernel_pb2.CountTokensResult]]
        if len(requests) == 1:  # the usual case: a blocking call costs less than a future
            answers = [lambda: stub.CountTokens(requests[0], timeout=_CALL_TIMEOUT_S)]
        else:  # all in flight at once
            futures = [stub.CountTokens.future(r, timeout=_CALL_TIMEOUT_S) for r in requests]
            answers = [future.result for future in futures]
        results: list[tuple[int, bool]] = []
        for text, answer in zip(texts, answers, strict=True):
            try:
                results.append((answer().count, True))
            except grpc.RpcError as exc:
                results.append(self._failed(text, exc))
        return results

    def _failed(self, text: str, exc: grpc.RpcError) -> tuple[int, bool]:
        code = exc.code() if isinstance(exc, grpc.Call) else None
        count = fallback_token_count(text)
        if code == grpc.StatusCode.UNIMPLEMENTED:
            self._unimplemented = True
            self._say_once(
                "unimplemented",
                "the kernel has no CountTokens: counting with the fallback "
                "ceil(utf8_bytes / 4) from now on",
            )
            return count, True
        self.epoch += 1
        name = code.name if code is not None else type(exc).__name__
        self._say_once(
            f"failed {name}",
            f"CountTokens failed ({name}); this count uses the fallback "
            "ceil(utf8_bytes / 4) and is asked again next time",
        )
        return count, False

    def _say_once(self, key: str, message: str) -> None:
        if key not in self._logged:
            self._logged.add(key)
            log.info("%s", message)


class KernelCounter:
    """A TokenCounter bound to one request's model (``ModelRef{id: model_target.id}``)."""

    def __init__(self, cache: TokenCountCache, model_id: str) -> None:
        self._cache = cache
        self._model_id = model_id

    @property
    def epoch(self) -> int:
        return self._cache.epoch

    def count(self, text: str) -> int:
        return self._cache.count_many(self._model_id, [text])[0]

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return self._cache.count_many(self._model_id, texts)


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
