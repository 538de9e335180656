"""The kernel's KernelCallbackService, as the reference kernel serves it on broker ID 1.

CountTokens answers with the documented fallback (no exact tokenizer here):
``ceil(total UTF-8 bytes of the text blocks / 4)``, summed before rounding,
non-text blocks ignored, ``exact=false``. A mode that answers UNIMPLEMENTED
stands in for older kernels.

``Log`` is validated the way upstream's kernels do (``internal/log``). Upstream
``main`` reads ``entry`` (field 2) and refuses a request without it;
``feat/pkg-plugin-sdk`` reserves field 2 and reads the batch ``entries``
(field 3), skipping bad entries one by one and refusing the call only when none
is good. By default either shape is accepted (``entries`` first); ``log_shape``
``"main"`` or ``"feat"`` reads only that branch's field, as that kernel would.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from typing import Literal

import grpc

from providers._gen.pluggableharness.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from providers._gen.pluggableharness.log.v1 import log_pb2
from providers.host.kernel_count import kernel_token_count

LogShape = Literal["either", "main", "feat"]
_NO_ENTRY = {
    "main": "log: entry is required",
    "feat": "log: entries is required and must be non-empty",
    "either": "log: entries is required and must be non-empty (or entry, as main reads it)",
}
_MISSING = "log: entry: log: missing required field: "


def entry_problem(entry: log_pb2.LogEntry) -> str | None:
    """Why the kernel rejects ``entry`` (its RecordFromEntry's message), or None."""
    if entry.level == log_pb2.LOG_LEVEL_UNSPECIFIED:
        return _MISSING + "level"
    if not entry.message:
        return _MISSING + "message"
    if not entry.HasField("time"):
        return _MISSING + "time"
    if entry.level not in log_pb2.LogLevel.values():
        return f"log: entry: log: level: log: invalid level: {entry.level}"
    return None


def request_entries(request: kernel_pb2.LogRequest, shape: LogShape) -> list[log_pb2.LogEntry]:
    """The entries a kernel of ``shape`` reads from ``request``."""
    batch = list(request.entries) if shape != "main" else []
    if batch or shape == "feat":
        return batch
    return [request.entry] if request.HasField("entry") else []


@dataclass
class CallbackStats:
    """What a plugin asked of the kernel (tests and benchmarks read these)."""

    count_tokens_calls: int = 0
    log_entries: list[log_pb2.LogEntry] = field(default_factory=list)
    rejected_logs: int = 0


class KernelCallbacks(kernel_pb2_grpc.KernelCallbackServiceServicer):
    def __init__(
        self,
        *,
        count_tokens: bool = True,
        log_sink: Callable[[str], None] | None = None,
        label: str = "",
        log_shape: LogShape = "either",
    ) -> None:
        self._count_tokens = count_tokens
        self._log_shape: LogShape = log_shape
        self._sink = log_sink
        self._label = label
        self._lock = threading.Lock()
        self.stats = CallbackStats()

    def CountTokens(
        self, request: kernel_pb2.CountTokensRequest, context: grpc.ServicerContext
    ) -> kernel_pb2.CountTokensResult:
        with self._lock:
            self.stats.count_tokens_calls += 1
        if not self._count_tokens:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "CountTokens not implemented")
        return kernel_pb2.CountTokensResult(
            count=kernel_token_count(list(request.content)), exact=False
        )

    def Log(
        self, request: kernel_pb2.LogRequest, context: grpc.ServicerContext
    ) -> kernel_pb2.LogResult:
        entries = request_entries(request, self._log_shape)
        if not entries:
            with self._lock:
                self.stats.rejected_logs += 1
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, _NO_ENTRY[self._log_shape])
        accepted: list[log_pb2.LogEntry] = []
        problem = ""
        for entry in entries:  # a bad entry is skipped; the call fails only if all are
            found = entry_problem(entry)
            if found is None:
                accepted.append(entry)
            else:
                problem = found
        with self._lock:
            self.stats.rejected_logs += len(entries) - len(accepted)
            self.stats.log_entries.extend(accepted)
        if not accepted:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        if self._sink is not None:
            for entry in accepted:
                level = log_pb2.LogLevel.Name(entry.level).removeprefix("LOG_LEVEL_")
                self._sink(f"[{level}] {self._label}: {entry.message}")
        return kernel_pb2.LogResult()


@dataclass
class CallbackServer:
    server: grpc.Server
    address: str
    directory: str

    def stop(self) -> None:
        self.server.stop(grace=None)
        with contextlib.suppress(OSError):
            os.unlink(self.address)
        with contextlib.suppress(OSError):
            os.rmdir(self.directory)


_UNIX_PATH_LIMIT = 100  # sun_path is 108 bytes; keep a margin


def start_callback_server(
    callbacks: KernelCallbacks, socket_dir: str | None = None
) -> CallbackServer:
    """Serve the callbacks on a fresh unix socket (the broker's AcceptAndServe(1)), in a
    directory of its own under ``socket_dir`` (default: the temporary directory, or
    ``/tmp`` when that is too long a path for a socket)."""
    base = socket_dir or tempfile.gettempdir()
    if len(os.path.join(base, "ctxk-12345678", "kernel.sock").encode()) > _UNIX_PATH_LIMIT:
        base = "/tmp"
    directory = tempfile.mkdtemp(prefix="ctxk-", dir=base)
    address = os.path.join(directory, "kernel.sock")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    kernel_pb2_grpc.add_KernelCallbackServiceServicer_to_server(callbacks, server)
    server.add_insecure_port(f"unix:{address}")
    server.start()
    return CallbackServer(server, address, directory)
