"""The wire as a kernel speaks it: a ContextRequest message, and the ContextError a failed
call carries (for the tests that talk gRPC to a real plugin process)."""

from __future__ import annotations

from pathlib import Path

import grpc

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.goplugin.status import context_error_from


def request(repo: Path, budget: int = 2000, **extra: object) -> context_pb2.ContextRequest:
    message = context_pb2.ContextRequest(
        token_budget=budget,
        working_directory=str(repo),
        model_target=model_pb2.ModelTarget(id="test-model", context_window=100_000),
        turn_id="01J0000000000000000000000",
    )
    for key, value in extra.items():
        setattr(message, key, value)
    return message


def error_of(call: grpc.RpcError) -> tuple[grpc.StatusCode, context_pb2.ContextError]:
    detail = context_error_from(call)
    assert detail is not None, "every failure carries a ContextError detail"
    assert isinstance(call, grpc.Call)
    return call.code(), detail
