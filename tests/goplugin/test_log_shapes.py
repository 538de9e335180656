"""Issue 11 item 3: our Log reaches both upstream kernels.

upstream ``main``'s ``kernel.v1.LogRequest`` carries ``LogEntry entry = 2``;
``feat/pkg-plugin-sdk`` reserves field 2 and carries ``repeated LogEntry
entries = 3``. Each kernel rejects the other's shape (main: "log: entry is
required"; feat: "log: entries is required and must be non-empty") and
neither rejects unknown fields, so we send the same entry in both. The two
kernels' messages are built here from those field numbers, independently of
our own proto, and decode the bytes our log handler really put on the wire.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    message_factory,
    struct_pb2,
    timestamp_pb2,
)

from providers._gen.pluggableharness.log.v1 import log_pb2
from providers.goplugin.callback import KernelConnection, KernelLogHandler

LOG_ENTRY = ".pluggableharness.log.v1.LogEntry"
_FIELD = descriptor_pb2.FieldDescriptorProto


def _kernel_file(name: str, *, feat: bool) -> descriptor_pb2.FileDescriptorProto:
    """One upstream branch's ``LogRequest``, from the field numbers alone."""
    file = descriptor_pb2.FileDescriptorProto(
        name=f"upstream/{name}/kernel.proto",
        package=f"upstream.{name}.kernel.v1",
        syntax="proto3",
        dependency=[log_pb2.DESCRIPTOR.name],
    )
    request = file.message_type.add(name="LogRequest")
    request.oneof_decl.add(name="_session_id")
    request.field.add(
        name="session_id",
        number=1,
        type=_FIELD.TYPE_STRING,
        label=_FIELD.LABEL_OPTIONAL,
        oneof_index=0,
        proto3_optional=True,
    )
    if feat:
        request.reserved_range.add(start=2, end=3)
        request.reserved_name.append("entry")
        request.field.add(
            name="entries",
            number=3,
            type=_FIELD.TYPE_MESSAGE,
            label=_FIELD.LABEL_REPEATED,
            type_name=LOG_ENTRY,
        )
    else:
        request.field.add(
            name="entry",
            number=2,
            type=_FIELD.TYPE_MESSAGE,
            label=_FIELD.LABEL_OPTIONAL,
            type_name=LOG_ENTRY,
        )
    return file


def _upstream_classes() -> tuple[Any, Any]:
    """(main's LogRequest, feat's LogRequest), in a pool of their own."""
    pool = descriptor_pool.DescriptorPool()
    for module in (struct_pb2, timestamp_pb2, log_pb2):
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        pool.Add(proto)
    pool.Add(_kernel_file("main", feat=False))
    pool.Add(_kernel_file("feat", feat=True))
    return tuple(  # type: ignore[return-value]
        message_factory.GetMessageClass(
            pool.FindMessageTypeByName(f"upstream.{name}.kernel.v1.LogRequest")
        )
        for name in ("main", "feat")
    )


MainLogRequest, FeatLogRequest = _upstream_classes()


class RawLogKernel:
    """A kernel callback server that keeps the raw bytes of every Log request."""

    def __init__(self, directory: Path) -> None:
        self.requests: list[bytes] = []
        self.arrived = threading.Condition()
        self.address = str(directory / "kernel.sock")

        def log(request: bytes, context: grpc.ServicerContext) -> bytes:
            with self.arrived:
                self.requests.append(request)
                self.arrived.notify_all()
            return b""  # LogResult is empty

        handler = grpc.method_handlers_generic_handler(
            "pluggableharness.kernel.v1.KernelCallbackService",
            {"Log": grpc.unary_unary_rpc_method_handler(log)},  # raw bytes both ways
        )
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        self.server.add_generic_rpc_handlers((handler,))
        self.server.add_insecure_port(f"unix:{self.address}")
        self.server.start()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[bytes]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.requests) >= count, timeout)
            return list(self.requests)


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[RawLogKernel]:
    served = RawLogKernel(tmp_path)
    try:
        yield served
    finally:
        served.server.stop(grace=None)


@pytest.fixture
def send_log(kernel: RawLogKernel) -> Iterator[Callable[[str], bytes]]:
    """Log one record through our handler to ``kernel``; the bytes it received."""
    connection = KernelConnection()
    connection.offer(1, "unix", kernel.address)
    handler = KernelLogHandler(connection)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("providers.tests.log_shapes")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)

    def send(message: str) -> bytes:
        before = len(kernel.requests)
        logger.warning("%s", message)
        received = kernel.wait_for(before + 1)
        assert len(received) > before, "the handler sent nothing to the kernel"
        return received[before]

    try:
        yield send
    finally:
        # The connection is left open: closing it can race the channel-ready poll thread
        # that ``offer`` starts (grpc then raises "Channel closed!" in that thread).
        logger.removeHandler(handler)


def _check_entry(entry: Any, message: str) -> None:
    """What both kernels' RecordFromEntry require: level, message and time set."""
    assert entry.level == log_pb2.LOG_LEVEL_WARN
    assert entry.message == message
    assert entry.logger == "providers.tests.log_shapes"
    assert entry.HasField("time") and entry.time.seconds > 0


def test_feat_kernel_finds_the_entry_in_entries(send_log: Callable[[str], bytes]) -> None:
    """feat/pkg-plugin-sdk kernel.v1.LogRequest: ``repeated LogEntry entries = 3`` MUST be
    non-empty ("log: entries is required and must be non-empty")."""
    wire = send_log("reaches the feat kernel")
    request = FeatLogRequest.FromString(wire)
    assert len(request.entries) == 1
    _check_entry(request.entries[0], "reaches the feat kernel")


def test_main_kernel_finds_the_entry_in_entry(send_log: Callable[[str], bytes]) -> None:
    """main kernel.v1.LogRequest: ``LogEntry entry = 2`` MUST be set ("log: entry is
    required"); the batch field is unknown to it and ignored."""
    wire = send_log("reaches the main kernel")
    request = MainLogRequest.FromString(wire)
    assert request.HasField("entry")
    _check_entry(request.entry, "reaches the main kernel")


def test_both_shapes_carry_the_same_entry(send_log: Callable[[str], bytes]) -> None:
    """One entry, the same bytes in both fields: neither kernel sees a different record."""
    wire = send_log("same entry twice")
    main = MainLogRequest.FromString(wire)
    feat = FeatLogRequest.FromString(wire)
    assert main.entry.SerializeToString() == feat.entries[0].SerializeToString()
    assert not main.HasField("session_id") and not feat.HasField("session_id")


def test_the_upstream_shapes_really_differ() -> None:
    """The check can fail: a main-shaped request has no entries for feat, and the
    reverse, which is why each kernel rejects the other's."""
    entry = log_pb2.LogEntry(level=log_pb2.LOG_LEVEL_INFO, message="m")
    entry.time.GetCurrentTime()
    main_only = MainLogRequest()
    main_only.entry.ParseFromString(entry.SerializeToString())
    assert len(FeatLogRequest.FromString(main_only.SerializeToString()).entries) == 0
    feat_only = FeatLogRequest()
    feat_only.entries.add().ParseFromString(entry.SerializeToString())
    assert not MainLogRequest.FromString(feat_only.SerializeToString()).HasField("entry")
