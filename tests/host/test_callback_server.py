"""The reference host's KernelCallbackService.Log behaves like upstream's kernels (issue 11
item 3): either branch's LogRequest shape is accepted, a request with neither is
INVALID_ARGUMENT, and each entry is checked as upstream's ``RecordFromEntry`` checks it
(level, message and time set; a known level). Real gRPC over the host's unix socket."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from providers._gen.pluggableharness.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from providers._gen.pluggableharness.log.v1 import log_pb2
from providers.host.callback_server import KernelCallbacks, LogShape, start_callback_server
from providers.host.launcher import PluginProcess
from tests.support.wire import request


def good(message: str = "hello", level: int = log_pb2.LOG_LEVEL_INFO) -> log_pb2.LogEntry:
    entry = log_pb2.LogEntry(level=level, logger="t", message=message)  # type: ignore[arg-type]
    entry.time.GetCurrentTime()
    return entry


class Kernel:
    def __init__(self, shape: LogShape) -> None:
        self.shape = shape
        self.callbacks = KernelCallbacks(label="t", log_shape=shape)
        self.server = start_callback_server(self.callbacks)
        self.channel = grpc.insecure_channel(f"unix:{self.server.address}")
        self.stub = kernel_pb2_grpc.KernelCallbackServiceStub(self.channel)

    def log(self, message: kernel_pb2.LogRequest) -> None:
        self.stub.Log(message, timeout=5)

    def refused(self, message: kernel_pb2.LogRequest) -> str:
        with pytest.raises(grpc.RpcError) as info:
            self.stub.Log(message, timeout=5)
        call = info.value
        assert isinstance(call, grpc.Call)
        assert call.code() == grpc.StatusCode.INVALID_ARGUMENT
        return call.details() or ""

    def messages(self) -> list[str]:
        return [e.message for e in self.callbacks.stats.log_entries]


@pytest.fixture(params=["either", "main", "feat"])
def kernel(request: pytest.FixtureRequest) -> Iterator[Kernel]:
    served = Kernel(request.param)
    try:
        yield served
    finally:
        served.channel.close()
        served.server.stop()


def test_either_shape_is_accepted() -> None:
    """feat (``entries``) and main (``entry``) requests both reach the log."""
    kernel = Kernel("either")
    try:
        kernel.log(kernel_pb2.LogRequest(entries=[good("feat one"), good("feat two")]))
        kernel.log(kernel_pb2.LogRequest(entry=good("main")))
        kernel.log(kernel_pb2.LogRequest(entry=good("both"), entries=[good("both")]))
        assert kernel.messages() == ["feat one", "feat two", "main", "both"]
        assert kernel.callbacks.stats.rejected_logs == 0
    finally:
        kernel.channel.close()
        kernel.server.stop()


def test_a_request_without_entries_is_invalid_argument(kernel: Kernel) -> None:
    """main: "log: entry is required"; feat: "log: entries is required and must be
    non-empty"."""
    detail = kernel.refused(kernel_pb2.LogRequest(session_id="s"))
    expected = {
        "main": "log: entry is required",
        "feat": "log: entries is required and must be non-empty",
        "either": "log: entries is required and must be non-empty (or entry, as main reads it)",
    }
    assert detail == expected[kernel.shape]
    assert kernel.callbacks.stats.log_entries == []


def test_each_branch_reads_only_its_own_field() -> None:
    """The kernels' incompatibility that item 3 works around: main ignores ``entries``,
    feat ignores ``entry`` (field 2 is reserved there)."""
    main, feat = Kernel("main"), Kernel("feat")
    try:
        assert main.refused(kernel_pb2.LogRequest(entries=[good()])) == "log: entry is required"
        assert feat.refused(kernel_pb2.LogRequest(entry=good())) == (
            "log: entries is required and must be non-empty"
        )
        both = kernel_pb2.LogRequest(entry=good("ours"), entries=[good("ours")])
        main.log(both)
        feat.log(both)
        assert main.messages() == feat.messages() == ["ours"]
    finally:
        for served in (main, feat):
            served.channel.close()
            served.server.stop()


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (
            {"level": log_pb2.LOG_LEVEL_UNSPECIFIED},
            "log: entry: log: missing required field: level",
        ),
        ({"message": ""}, "log: entry: log: missing required field: message"),
        ({"time": None}, "log: entry: log: missing required field: time"),
        ({"level": 42}, "log: entry: log: level: log: invalid level: 42"),
    ],
)
def test_an_invalid_entry_is_refused_with_upstreams_message(
    kernel: Kernel, broken: dict[str, object], problem: str
) -> None:
    """RecordFromEntry (both branches): level, message and time MUST be set."""
    entry = good("bad")
    for name, value in broken.items():
        if value is None:
            entry.ClearField(name)  # type: ignore[arg-type]
        else:
            setattr(entry, name, value)
    shaped = kernel_pb2.LogRequest(entry=entry, entries=[entry])
    assert kernel.refused(shaped) == problem
    assert kernel.callbacks.stats.rejected_logs == 1
    assert kernel.callbacks.stats.log_entries == []


def test_feat_skips_a_bad_entry_in_a_batch() -> None:
    """feat: "A malformed entry within an otherwise-valid batch is skipped", the call
    succeeds; only a batch with no good entry fails."""
    kernel = Kernel("feat")
    try:
        bad = good("")
        kernel.log(kernel_pb2.LogRequest(entries=[bad, good("kept")]))
        assert kernel.messages() == ["kept"]
        assert kernel.callbacks.stats.rejected_logs == 1
        untimed = good("untimed")
        untimed.ClearField("time")
        assert kernel.refused(kernel_pb2.LogRequest(entries=[untimed, bad])) == (
            "log: entry: log: missing required field: message"  # the last entry's error
        )
    finally:
        kernel.channel.close()
        kernel.server.stop()


@pytest.mark.parametrize("shape", ["main", "feat"])
def test_a_real_plugin_logs_to_either_kernel(
    repo_conventions_command: list[str], sample: Path, shape: LogShape
) -> None:
    """End to end: the plugin's own warning (a rejected request) reaches a host that
    reads only main's or only feat's field, and nothing is refused."""
    callbacks = KernelCallbacks(label=shape, log_shape=shape)
    plugin = PluginProcess.launch(repo_conventions_command, local_name="c", callbacks=callbacks)
    try:
        # A good turn first: its CountTokens waits for the broker's offer of the kernel,
        # so the warning below cannot go to stderr for want of an address.
        assert plugin.stub.Contribute(request(sample), timeout=30).sections
        assert callbacks.stats.count_tokens_calls > 0
        with pytest.raises(grpc.RpcError):
            plugin.stub.Contribute(request(sample, budget=-5), timeout=10)
        deadline = time.monotonic() + 10

        def messages() -> list[str]:
            return [e.message for e in callbacks.stats.log_entries]

        while time.monotonic() < deadline and not any("token_budget" in m for m in messages()):
            time.sleep(0.02)
        assert any("token_budget" in m for m in messages()), messages()
        assert any("not loaded" in m for m in messages())  # the good turn's warnings too
        assert callbacks.stats.rejected_logs == 0
    finally:
        plugin.close()
